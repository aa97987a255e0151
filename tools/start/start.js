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
// Processes per service: "2" for every service, or "chat=2,billing=2".
const replicas = parseReplicas(env.SVC_REPLICAS || '1');
// Gateway replicas, one per port ("3111,3112", for a load balancer in front: docs/cluster.md); default one on PORT.
const gatewayPorts = parseGatewayPorts(env.SVC_GATEWAY_PORTS || String(port));
// Extra Node.js flags for every service process, e.g. "--max-old-space-size=2048" or "--cpu-prof".
const nodeArgs = (env.SVC_NODE_ARGS || '').split(' ').filter(Boolean);
// The gateway's own, before SVC_NODE_ARGS (a later flag wins): a young generation of up to 64 MiB
// per semi-space, where the requests in flight die young instead of being copied out (16% less
// gateway CPU at 32 connections; docs/configuration.md, "Request bodies and memory").
const GATEWAY_NODE_ARGS = ['--max-semi-space-size=64'];
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

function parseReplicas(value) {
  const counts = Object.fromEntries(SERVICES.map((name) => [name, 1]));
  const number = (text, what) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1 || n > 16) throw new Error(`SVC_REPLICAS: ${what} must be a whole number from 1 to 16, got "${text}"`);
    return n;
  };
  if (/^\d+$/.test(value.trim())) return Object.fromEntries(SERVICES.map((name) => [name, number(value.trim(), 'the count')]));
  for (const part of value.split(',').filter((p) => p.trim())) {
    const [name, count] = part.split('=').map((p) => p.trim());
    if (!SERVICES.includes(name)) throw new Error(`SVC_REPLICAS: unknown service "${name}" (one of ${SERVICES.join(', ')})`);
    counts[name] = number(count, name);
  }
  return counts;
}

function parseGatewayPorts(value) {
  const ports = value.split(',').map((p) => p.trim());
  for (const p of ports) if (!/^\d+$/.test(p) || Number(p) < 1 || Number(p) > 65_535) throw new Error(`SVC_GATEWAY_PORTS: "${p}" is not a port`);
  if (new Set(ports).size !== ports.length) throw new Error(`SVC_GATEWAY_PORTS: a port is listed twice (${value})`);
  return ports.map(Number);
}

const children = new Map();
let stopping = false;

function launch(name, replica = 0, ownEnv = {}) {
  const script = path.join(root, 'dist/apps', name, 'src/main.js');
  const flags = name === 'gateway' ? [...GATEWAY_NODE_ARGS, ...nodeArgs] : nodeArgs;
  const child = spawn(process.execPath, [...flags, '-r', path.join(root, 'tools/register-paths.js'), script], {
    cwd: root,
    env: { ...env, ...ownEnv },
    stdio: 'inherit',
  });
  const id = replica === 0 ? name : `${name}#${replica + 1}`;
  const entry = children.get(id) ?? { restarts: 0 };
  entry.child = child;
  entry.startedAt = Date.now();
  children.set(id, entry);
  child.on('exit', (code, signal) => {
    if (stopping) return;
    if (Date.now() - entry.startedAt > 30_000) entry.restarts = 0;
    const delay = Math.min(30_000, 500 * 2 ** entry.restarts++);
    say(`${id} exited (${signal ?? code}); restarting in ${delay} ms`);
    setTimeout(() => stopping || launch(name, replica, ownEnv), delay).unref();
  });
}

function stop(signal) {
  if (stopping) return;
  stopping = true;
  say(`stopping (${signal})`);
  const alive = [...children.values()].map((e) => e.child).filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of alive) child.kill('SIGTERM');
  // Each service drains for up to SHUTDOWN_GRACE_MS (docs/operations.md); only a process still alive after that, and a margin, is killed.
  const graceMs = Number(env.SHUTDOWN_GRACE_MS || 20_000);
  const force = setTimeout(() => alive.forEach((c) => c.kill('SIGKILL')), graceMs + 5_000);
  Promise.all(alive.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve() : c.once('exit', resolve))))).then(() => {
    clearTimeout(force);
    process.exit(process.exitCode ?? 0);
  });
}

async function main() {
  prepare();
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  for (const name of SERVICES) for (let i = 0; i < replicas[name]; i++) launch(name, i);
  gatewayPorts.forEach((p, i) => launch('gateway', i, { PORT: String(p) }));
  const url = `http://127.0.0.1:${gatewayPorts[0]}`;
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
