#!/usr/bin/env node
// `npm start`: build, prepare the embedded model, migrate, start every service and the gateway,
// wait until /healthz answers, print the URL. Restarts a crashed process with backoff.
// Ctrl-C (SIGINT) or SIGTERM stops everything cleanly.
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { waitForHealth } = require('./wait-for-health');

const root = path.resolve(__dirname, '../..');
const env = { ...process.env };
const port = Number(env.PORT || 3000);
const modelsDir = path.resolve(root, env.SVC_MODELS_DIR || 'models');
const SERVICES = ['keys', 'chat', 'media', 'audio', 'billing', 'wallet'];
// Extra Node.js flags for every service process, e.g. "--max-old-space-size=2048" or "--cpu-prof".
const nodeArgs = (env.SVC_NODE_ARGS || '').split(' ').filter(Boolean);
const say = (msg) => process.stdout.write(`[start] ${msg}\n`);
const node = (script, args = []) =>
  execFileSync(process.execPath, ['-r', path.join(root, 'tools/register-paths.js'), path.join(root, script), ...args], { cwd: root, env, stdio: 'inherit' });

function prepare() {
  if (env.SVC_SKIP_BUILD !== '1') {
    say('building');
    execFileSync(process.execPath, [path.join(root, 'tools/build.js'), '--quiet'], { cwd: root, env, stdio: 'inherit' });
  }
  const tinyModel = path.join(modelsDir, 'svc-tiny-random.gguf');
  if (!fs.existsSync(tinyModel)) {
    say(`writing the embedded test model ${path.relative(root, tinyModel)}`);
    node('dist/tools/gguf/src/main.js', ['--out', tinyModel]);
  }
  say('applying database migrations');
  node('dist/tools/migrate/src/main.js');
}

const children = new Map();
let stopping = false;

function launch(name) {
  const script = path.join(root, 'dist/apps', name, 'src/main.js');
  const child = spawn(process.execPath, [...nodeArgs, '-r', path.join(root, 'tools/register-paths.js'), script], { cwd: root, env, stdio: 'inherit' });
  const entry = children.get(name) ?? { restarts: 0 };
  entry.child = child;
  entry.startedAt = Date.now();
  children.set(name, entry);
  child.on('exit', (code, signal) => {
    if (stopping) return;
    if (Date.now() - entry.startedAt > 30_000) entry.restarts = 0;
    const delay = Math.min(30_000, 500 * 2 ** entry.restarts++);
    say(`${name} exited (${signal ?? code}); restarting in ${delay} ms`);
    setTimeout(() => stopping || launch(name), delay).unref();
  });
}

function stop(signal) {
  if (stopping) return;
  stopping = true;
  say(`stopping (${signal})`);
  const alive = [...children.values()].map((e) => e.child).filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of alive) child.kill('SIGTERM');
  const force = setTimeout(() => alive.forEach((c) => c.kill('SIGKILL')), 10_000);
  Promise.all(alive.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve() : c.once('exit', resolve))))).then(() => {
    clearTimeout(force);
    process.exit(process.exitCode ?? 0);
  });
}

async function main() {
  prepare();
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  for (const name of SERVICES) launch(name);
  launch('gateway');
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(`${url}/healthz`, Number(env.START_TIMEOUT_MS || 120_000));
  say(`platform ready: ${url}/api/v1`);
  say(
    env.SVC_ADMIN_KEY
      ? 'bootstrap ADMIN key: the value of SVC_ADMIN_KEY (use it as "Authorization: Bearer $SVC_ADMIN_KEY")'
      : 'no SVC_ADMIN_KEY set: create an account and key with `npm run svc -- accounts create --name me` and `npm run svc -- keys create --account <id> --type ADMIN`',
  );
}

main().catch((err) => {
  process.stderr.write(`[start] ${err instanceof Error ? err.message : String(err)}\n`);
  stop('error');
  process.exitCode = 1;
});
