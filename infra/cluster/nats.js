// Three nats-servers in one cluster (full mesh of routes) with JetStream enabled. The platform
// itself uses core NATS only (request/reply, queue groups, events): no JetStream streams today.
const fs = require('node:fs');
const path = require('node:path');
const { layout } = require('./layout');
const { listening, running, startProcess, stopProcess, waitUntil } = require('./processes');

const BIN = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => fs.existsSync(p));

function natsConfig(server) {
  const routes = layout.nats.map((n) => `nats-route://127.0.0.1:${n.routePort}`).join(', ');
  const store = path.join(layout.dir, 'nats', server.name);
  return [
    `server_name: ${server.name}`,
    `listen: 127.0.0.1:${server.port}`,
    `http: 127.0.0.1:${server.monitorPort}`,
    `jetstream { store_dir: "${store}", max_memory_store: 64MB, max_file_store: 1GB }`,
    `cluster { name: svc-cluster, listen: 127.0.0.1:${server.routePort}, routes: [${routes}] }`,
    '',
  ].join('\n');
}

function serverNamed(name) {
  const server = layout.nats.find((n) => n.name === name);
  if (!server) throw new Error(`no NATS server "${name}" (${layout.nats.map((n) => n.name).join(', ')})`);
  return server;
}

async function startNats(name) {
  if (!BIN) throw new Error('nats-server not found (Debian: apt-get install nats-server)');
  const server = serverNamed(name);
  if (running(name)) return;
  const config = path.join(layout.dir, 'nats', `${name}.conf`);
  fs.mkdirSync(path.dirname(config), { recursive: true });
  fs.writeFileSync(config, natsConfig(server));
  // One Go scheduler thread each (docs/operations.md, "The NATS server").
  startProcess(name, BIN, ['-c', config], { env: { ...process.env, GOMAXPROCS: process.env.GOMAXPROCS ?? '1' } });
  await waitUntil(name, () => listening(server.port));
}

/** Waits until every server sees the other two over its routes. */
async function waitForMesh() {
  const routes = async (n) => {
    try {
      const res = await fetch(`http://127.0.0.1:${n.monitorPort}/routez`);
      return (await res.json()).num_routes;
    } catch {
      return 0;
    }
  };
  await waitUntil(
    'the NATS cluster mesh',
    async () => (await Promise.all(layout.nats.map(routes))).every((r) => r >= layout.nats.length - 1),
    30_000,
    'nats-1',
  );
}

const stopNats = (name, signal) => stopProcess(serverNamed(name).name, signal, 10_000);

module.exports = { startNats, stopNats, waitForMesh };
