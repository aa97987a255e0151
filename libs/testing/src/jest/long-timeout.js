/* global jest */
// Integration and end-to-end tests (and their hooks) talk to real services and start processes:
// Jest's 5 s default is too short on a loaded 2-core machine. (`testTimeout` in a project entry
// of jest.config.js is ignored by Jest: it is a global option.)
jest.setTimeout(Number(process.env.JEST_LONG_TIMEOUT_MS || 120_000));
