import type { DebianTool } from './DebianTool';

/** Chromium or Chrome, for the demo page's tests in a real browser (gateway/test/browser.spec.ts, via playwright-core). */
export const CHROMIUM: DebianTool = {
  name: 'Chromium (or Google Chrome)',
  envVar: 'CHROME_PATH',
  commands: ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'],
  paths: [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/snap/bin/chromium',
    '/usr/bin/google-chrome',
    '/opt/google/chrome/chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  ],
  debianPackage: 'chromium',
  neededBy: 'gateway/test/browser.spec.ts',
};
