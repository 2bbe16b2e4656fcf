#!/usr/bin/env node
// `npx chatflux-gateway`: the gateway (chat endpoints, /healthz, the demo page), configured from the environment
// (PORT, HOST, CHATFLUX_PROVIDER, …: see the README's Configuration). Compiled JavaScript, one process: SIGTERM and
// SIGINT reach it and run its graceful shutdown.
require('../dist/cjs/gateway/main.js');
