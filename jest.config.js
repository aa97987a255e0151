// One Jest run for the whole monorepo: unit specs, integration specs against the real local
// services, and end-to-end specs that start the platform. See docs/testing.md.
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.base.json');

const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
};
const moduleNameMapper = pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' });
const common = {
  rootDir: __dirname,
  testEnvironment: '<rootDir>/libs/testing/src/jest/node-environment.js',
  transform,
  moduleNameMapper,
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools,bench}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.js',
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest/long-timeout.js'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.js',
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest/long-timeout.js'],
    },
    {
      ...common,
      displayName: 'resilience',
      testMatch: ['<rootDir>/test/resilience/**/*.resilience-spec.ts'],
      globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.js',
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest/long-timeout.js'],
    },
  ],
};
