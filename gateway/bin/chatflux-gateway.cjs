#!/usr/bin/env node
// `npx chatflux-gateway`: the gateway (chat endpoints, /healthz, the demo page), configured from a config file
// (`--config FILE`) and the environment (PORT, HOST, CHATFLUX_PROVIDER, …: see docs/gateway.md). Compiled
// JavaScript, one process: SIGTERM and SIGINT reach it and run its graceful shutdown.
require('../dist/main.js');
