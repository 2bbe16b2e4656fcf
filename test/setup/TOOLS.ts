import { CHROMIUM } from './CHROMIUM';
import type { DebianTool } from './DebianTool';

/** The programs the global setup finds, or installs from Debian's packages, before the tests run. */
export const TOOLS: readonly DebianTool[] = [CHROMIUM];
