#!/usr/bin/env node
// `npm test`: build once (end-to-end tests start the built platform), then run every Jest
// project (unit, integration, e2e). Extra arguments go to Jest, e.g. `npm test -- --selectProjects unit`.
const { execFileSync, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
execFileSync(process.execPath, [path.join(root, 'tools/build.js'), '--quiet'], { cwd: root, stdio: 'inherit' });
const jest = require.resolve('jest/bin/jest');
const args = ['--ci', `--maxWorkers=${process.env.JEST_WORKERS || 2}`, ...process.argv.slice(2)];
const result = spawnSync(process.execPath, [jest, ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } });
process.exit(result.status ?? 1);
