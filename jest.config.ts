import { availableParallelism } from 'node:os';
import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/examples', '<rootDir>/gateway/test'],
  testMatch: ['**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  // Sources import siblings with a `.js` suffix (required by the ESM build); map it back to the .ts file.
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // Examples import the package by name, as users do.
    '^chatflux$': '<rootDir>/src/index.ts',
    '^chatflux/(.*)$': '<rootDir>/src/$1/index.ts',
  },
  testTimeout: 30_000,
  // At least two workers, also on a 2-core machine (jest's default there is one): most suites wait on I/O (npm
  // installs, servers on loopback, timers), so two of them share two cores well.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // fast-check runs from a fixed seed in CI (FC_SEED=random to explore): see test/helpers/fastCheckSeed.ts.
  setupFiles: ['<rootDir>/test/helpers/fastCheckSeed.ts'],
  // Once per run: a directory the workers share (the packed package), and the programs some tests need (Chromium),
  // found or installed from Debian's packages: see test/setup/globalSetup.ts.
  globalSetup: '<rootDir>/test/setup/globalSetup.ts',
  globalTeardown: '<rootDir>/test/setup/globalTeardown.ts',
  // The long suites first (a fresh clone has no durations to order by): see test/setup/slowFirstSequencer.cjs.
  testSequencer: '<rootDir>/test/setup/slowFirstSequencer.cjs',
};

export default config;
