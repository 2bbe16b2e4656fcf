import type { DebianTool } from './DebianTool';

/** The environment variable in which the global setup leaves, for the workers, why a tool is missing. */
export const missingToolVariable = (tool: DebianTool): string => `CHATFLUX_MISSING_${tool.debianPackage.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
