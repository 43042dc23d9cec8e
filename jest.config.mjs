import { readFileSync } from 'node:fs';

const swc = JSON.parse(readFileSync(new URL('./.swcrc', import.meta.url), 'utf8'));

const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  moduleNameMapper: {
    '^@lms/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  roots: ['<rootDir>/apps', '<rootDir>/libs'],
};

/** Tiers (design §8): unit specs beside the code, integration specs per service, end-to-end through HTTP. */
export default {
  // Integration and end-to-end specs talk to real servers on a loaded 2-core machine: a guard against
  // hangs, not a speed check (speed lives in `npm run bench`).
  testTimeout: 30_000,
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
  projects: [
    { ...base, displayName: 'unit', testMatch: ['**/*.spec.ts'] },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['**/*.integration-spec.ts'],
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['**/*.e2e-spec.ts'],
    },
  ],
};
