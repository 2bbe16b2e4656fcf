/**
 * The built-in emulator is a provider of the gateway (`upstream.provider: emulator`, what no provider, base URL or key
 * means), not a test import on its production path: its code (src/testing/) is loaded only when it is chosen.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, userEnv } from '../../test/helpers/packedPackage';

const PROBE = join(__dirname, 'testingModulesLoaded.ts');

/** The files of src/testing/ a gateway started with `env` loaded. */
const testingModulesLoaded = (env: Record<string, string>): Promise<string[]> =>
  new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', PROBE, JSON.stringify(env)], { cwd: ROOT, env: userEnv(), timeout: 60_000 }, (error, stdout, stderr) =>
      error === null ? resolve(JSON.parse(stdout) as string[]) : reject(new Error(`${error.message}\n${stderr}`)),
    );
  });

describe('the built-in emulator as a provider', () => {
  it('is loaded when chosen: no provider and no base URL', async () => {
    const loaded = await testingModulesLoaded({});
    expect(loaded.some((file) => file.endsWith('startEmulator.ts'))).toBe(true);
  }, 90_000);

  it('is not loaded for a real provider: no code of src/testing/ on the production path', async () => {
    expect(await testingModulesLoaded({ CHATFLUX_BASE_URL: 'http://127.0.0.1:9/v1' })).toEqual([]);
    expect(await testingModulesLoaded({ CHATFLUX_PROVIDER: 'deepseek', DEEPSEEK_API_KEY: 'sk-test' })).toEqual([]);
  }, 90_000);
});
