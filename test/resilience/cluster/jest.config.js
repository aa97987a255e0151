// `npm run test:cluster`: fault tests on the clustered topology (infra/cluster, docs/cluster.md).
// Not a project of the root jest.config.js: `npm test` does not start the cluster. One file at a
// time (--runInBand): every file shares the one cluster that the global setup brings up.
const path = require('node:path');
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('../../../tsconfig.base.json');

const root = path.resolve(__dirname, '../../..');

module.exports = {
  rootDir: root,
  displayName: 'cluster',
  testEnvironment: '<rootDir>/libs/testing/src/jest/node-environment.js',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }] },
  moduleNameMapper: pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' }),
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  testMatch: ['<rootDir>/test/resilience/cluster/**/*.cluster-spec.ts'],
  globalSetup: '<rootDir>/test/resilience/cluster/global-setup.js',
  globalTeardown: '<rootDir>/test/resilience/cluster/global-teardown.js',
  setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest/long-timeout.js'],
};
