import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { DebianTool } from './DebianTool';

const isExecutable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

/**
 * Where the tool is on this machine: its environment variable (when it names an executable), then each command on
 * `PATH`, then the usual locations.
 *
 * @returns The executable's path, or `undefined` when there is none.
 */
export function findTool(tool: DebianTool, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env[tool.envVar]?.trim();
  if (named !== undefined && named !== '' && isAbsolute(named) && isExecutable(named)) return named;
  const dirs = (env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '');
  for (const command of tool.commands) {
    for (const dir of dirs) if (isExecutable(join(dir, command))) return join(dir, command);
  }
  return tool.paths.find(isExecutable);
}
