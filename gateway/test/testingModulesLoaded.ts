/**
 * A program (run with `node --import tsx`): starts the gateway with the environment given as JSON in argv[2] on an
 * ephemeral port, then prints, as JSON, the files of src/testing/ that were loaded (`require.cache`), and stops it.
 * The gateway loads the emulator's code only when its provider (or a route's target) is `emulator`.
 */
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway } from '../src/startGateway';

const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
void startGateway({ ...loadGatewayConfig(env), port: 0, host: '127.0.0.1' }, { log: () => undefined }).then(async (gateway) => {
  const loaded = Object.keys(require.cache).filter((file) => /[\\/]src[\\/]testing[\\/]/.test(file));
  await gateway.close();
  process.stdout.write(JSON.stringify(loaded));
});
