import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { userEnv } from '../helpers/packedPackage';
import type { WireTarget, WireTargetSetup } from '../helpers/wireContractSuite';

/** What fixtures/serveWire.cjs serves. */
export type InstalledTarget = 'express' | 'nest-express' | 'nest-fastify';

/**
 * Starts fixtures/serveWire.cjs inside an installed project (copied there, so that `express`, `@nestjs/*` and
 * `chatflux` resolve from the project as in a user's app) in its own Node process, and resolves once it listens.
 * `close()` sends SIGTERM and waits for the exit.
 */
export async function startInstalledServer(project: string, target: InstalledTarget, setup: WireTargetSetup, options: { bodyParser?: boolean } = {}): Promise<WireTarget> {
  copyFileSync(join(__dirname, 'fixtures', 'serveWire.cjs'), join(project, 'serveWire.cjs'));
  const wireSetup = { client: setup.client, apiKeys: setup.apiKeys, heartbeatMs: setup.heartbeatMs, bodyParser: options.bodyParser ?? true };
  const child = spawn(process.execPath, ['serveWire.cjs', target], {
    cwd: project,
    env: userEnv({ CHATFLUX_WIRE_SETUP: JSON.stringify(wireSetup) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    // Not left running when it never says it listens.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${target} in ${project} did not start: ${output}`));
    }, 20_000);
    child.stdout.on('data', () => {
      const url = /^listening (http:\/\/\S+)$/m.exec(output)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve(url);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${target} exited with ${code}: ${output}`));
    });
  });
  return {
    baseUrl,
    close: async () => {
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) throw new Error(`${target} exited with ${code}: ${output}`);
    },
  };
}
