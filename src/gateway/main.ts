/**
 * The entry of `npm start`: reads the configuration from the environment, prints it (without secrets), starts the
 * gateway, and shuts it down gracefully on SIGTERM / SIGINT (requests in flight get 10 s, then a 503 with
 * `Retry-After`, or the in-band `shutting_down` error frame on a stream already committed).
 */
import { describeGatewayConfig } from './describeGatewayConfig.js';
import { loadGatewayConfig } from './loadGatewayConfig.js';
import { startGateway } from './startGateway.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const config = loadGatewayConfig(process.env);
  for (const line of describeGatewayConfig(config)) process.stderr.write(`${line}\n`);
  const gateway = await startGateway(config);
  process.stderr.write(`chatflux gateway listening on ${gateway.url} (open it in a browser)\n`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: shutting down (grace ${SHUTDOWN_GRACE_MS} ms)\n`);
    void gateway.close(SHUTDOWN_GRACE_MS).then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`chatflux gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
