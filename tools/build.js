#!/usr/bin/env node
// Builds everything `npm start` runs: Prisma clients (offline), TypeScript to dist/, assets.
// Incremental: a second run with no changes takes a few seconds.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const quiet = process.argv.includes('--quiet');
const log = (msg) => quiet || process.stderr.write(`[build] ${msg}\n`);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });

log('prisma clients');
run(process.execPath, [path.join(root, 'tools/prisma/generate.js')]);

log('typescript');
run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json']);

// Files tsc does not emit but the processes load at run time (ESM workers, catalog data).
log('assets');
const assetExt = new Set(['.mjs', '.json', '.yaml', '.wasm']);
function copyAssets(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'generated') copyAssets(from);
    } else if (assetExt.has(path.extname(entry.name))) {
      const to = path.join(root, 'dist', path.relative(root, from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
    }
  }
}
for (const top of ['apps', 'libs', 'tools', 'bench']) copyAssets(path.join(root, top));

// The admin console (apps/console, Vite + React) into dist/console, which the gateway serves at
// /console. Skipped when nothing under apps/console changed since the last build.
function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}
const consoleIndex = path.join(root, 'dist/console/index.html');
if (!fs.existsSync(consoleIndex) || fs.statSync(consoleIndex).mtimeMs < newestMtime(path.join(root, 'apps/console'))) {
  log('console');
  run(process.execPath, [
    path.join(path.dirname(require.resolve('vite/package.json')), 'bin/vite.js'),
    'build',
    '--config',
    'apps/console/vite.config.mts',
    '--logLevel',
    'warn',
  ]);
}
log('done');
