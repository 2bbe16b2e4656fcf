import type { DebianTool } from './DebianTool';
import { findTool } from './findTool';
import { missingToolVariable } from './missingToolVariable';

/**
 * The tool's executable for a test, as the global setup found or installed it; else an error of one line saying
 * what to install (the global setup's reason, when it tried).
 */
export function requireTool(tool: DebianTool): string {
  const found = findTool(tool);
  if (found !== undefined) return found;
  const message =
    process.env[missingToolVariable(tool)] ??
    `${tool.neededBy} needs ${tool.name}: install it (Debian/Ubuntu: apt-get install ${tool.debianPackage}) or set ${tool.envVar} to its executable.`;
  const error = new Error(message);
  error.stack = message; // one line in jest's report, not a stack trace
  throw error;
}
