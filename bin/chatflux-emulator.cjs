#!/usr/bin/env node
// `npx chatflux-emulator --port 8787 --dialect moonshot`: the OpenAI-compatible upstream emulator of chatflux/testing.
const { main } = require('../dist/cjs/testing/cli.js');
main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (error) => {
    console.error(error && error.message ? error.message : String(error));
    process.exit(1);
  },
);
