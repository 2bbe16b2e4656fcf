import { CHROMIUM } from './CHROMIUM';
import type { DebianTool } from './DebianTool';
import { PROMETHEUS } from './PROMETHEUS';
import { REDIS } from './REDIS';

/** The programs the global setup finds, or installs from Debian's packages, before the tests run. */
export const TOOLS: readonly DebianTool[] = [CHROMIUM, PROMETHEUS, REDIS];
