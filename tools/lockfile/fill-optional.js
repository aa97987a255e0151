#!/usr/bin/env node
// The npm registry reachable from our machines carries only some platform builds of packages
// that ship native binaries as optional dependencies (node-llama-cpp, nx, unrs-resolver). npm
// install skips the unreachable ones and leaves them out of package-lock.json, after which
// `npm ci` refuses the lock ("Missing: ... from lock file"). This adds a lock entry for each
// missing optional dependency with its os/cpu/libc, so `npm ci` skips it on platforms it is not
// for, exactly as with a lock written where the whole registry is reachable.
// Run after every `npm install` that changes dependencies: `node tools/lockfile/fill-optional.js`.
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.resolve(__dirname, '../../package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const OS = {
  linux: 'linux',
  darwin: 'darwin',
  mac: 'darwin',
  win: 'win32',
  win32: 'win32',
  freebsd: 'freebsd',
  android: 'android',
  openharmony: 'openharmony',
};
const CPU = { x64: 'x64', arm64: 'arm64', arm: 'arm', armv7l: 'arm', ia32: 'ia32', riscv64: 'riscv64', loong64: 'loong64', ppc64: 'ppc64', s390x: 's390x' };

/** os, cpu and libc of a platform package, read from its name (e.g. `nx-linux-arm64-musl`). */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.map((p) => OS[p]).find(Boolean);
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  if (!os || !cpu) return null;
  const libc = parts.some((p) => p.startsWith('musl')) ? ['musl'] : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [dep, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = location === '' ? 'node_modules' : `${location}/node_modules`;
    if (packages[`${base}/${dep}`] || packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) {
      process.stderr.write(`cannot tell the platform of ${dep}; left as is\n`);
      continue;
    }
    packages[`node_modules/${dep}`] = { version: spec.replace(/^[~^=]/, ''), ...platform, optional: true };
    added++;
  }
}
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`package-lock.json: added ${added} optional platform entries\n`);
