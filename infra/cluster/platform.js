// The platform on the cluster: `npm start`'s supervisor (tools/start/start.js) with two replicas
// of every service and two gateways (SVC_GATEWAY_PORTS), on the cluster's NATS seed list, Redis
// and the PostgreSQL proxy. It restarts a process that dies, as under `npm start`.
const { execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { layout } = require('./layout');
const { running, startProcess, stopProcess, waitUntil, alive } = require('./processes');

/** The bootstrap ADMIN key: SVC_ADMIN_KEY when set, else one made once and kept in tmp/cluster/admin-key. */
function adminKey() {
  if (process.env.SVC_ADMIN_KEY) return process.env.SVC_ADMIN_KEY;
  if (!fs.existsSync(layout.adminKeyPath)) fs.writeFileSync(layout.adminKeyPath, `svc_cluster_${randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });
  return fs.readFileSync(layout.adminKeyPath, 'utf8').trim();
}

/** What the platform's processes (and the operator CLIs) need to find the cluster's parts. */
function clusterEnv() {
  const db = (name) => `${layout.pgUrl}/${name}`;
  return {
    NATS_URL: layout.natsUrl,
    REDIS_URL: `redis://127.0.0.1:${layout.redisPort}`,
    KEYS_DATABASE_URL: db('svc_keys'),
    BILLING_DATABASE_URL: db('svc_billing'),
    CHAT_DATABASE_URL: db('svc_chat'),
    WALLET_DATABASE_URL: db('svc_wallet'),
  };
}

function platformEnv() {
  return {
    // Settings a caller may change (e.g. the cluster tests: shorter grace, no rate limits)
    SVC_REPLICAS: '2',
    SHUTDOWN_GRACE_MS: '10000',
    LOG_LEVEL: 'info',
    // a loaded 2-core machine took 4-5 minutes to boot the 14 processes
    START_TIMEOUT_MS: '600000',
    ...process.env,
    // The topology itself
    ...clusterEnv(),
    HOST: '127.0.0.1',
    PORT: String(layout.gateways[0]),
    SVC_GATEWAY_PORTS: layout.gateways.join(','),
    TRUST_PROXY: 'true',
    SVC_ADMIN_KEY: adminKey(),
    SETTLEMENT_JOURNAL_DIR: path.join(layout.dir, 'settlements'),
  };
}

async function startPlatform() {
  if (running('platform')) return;
  const logPath = path.join(layout.logDir, 'platform.log');
  const from = fs.existsSync(logPath) ? fs.statSync(logPath).size : 0;
  const pid = startProcess('platform', process.execPath, [path.join(layout.root, 'tools/start/start.js')], { env: platformEnv() });
  const timeoutMs = Number(platformEnv().START_TIMEOUT_MS) + 10_000;
  await waitUntil(
    'the platform',
    () => {
      if (!alive(pid)) throw new Error(`the platform exited; see ${logPath}`);
      return fs.readFileSync(logPath, 'utf8').slice(from).includes('[start] platform ready');
    },
    timeoutMs,
    'platform',
  );
}

/** The pid of the process listening on 127.0.0.1:port (a gateway), from `ss`. */
function pidOnPort(port) {
  const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const match = /pid=(\d+)/.exec(out);
  return match ? Number(match[1]) : undefined;
}

const stopPlatform = () => stopProcess('platform', 'SIGTERM', Number(platformEnv().SHUTDOWN_GRACE_MS) * 2 + 10_000);

module.exports = { startPlatform, stopPlatform, clusterEnv, adminKey, pidOnPort };
