// Jest globalSetup for the integration and e2e projects (plain JS: runs before ts-jest is set
// up for test files). Fails fast, naming each local service that does not answer, and drops
// test databases that crashed or interrupted runs left behind. Also generates the Prisma clients
// (a no-op when up to date), so `npx jest` works on a fresh clone without a build first.
const { execFileSync } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const { Client } = require('pg');
const { connect } = require('nats');

const TIMEOUT_MS = 2_000;
const STALE_AFTER_MS = 60 * 60 * 1000;

const pgServer = (process.env.TEST_PG_URL || 'postgresql://postgres@127.0.0.1:5432').replace(/\/+$/, '');
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const natsUrl = process.env.NATS_URL || 'nats://127.0.0.1:4222';

const HOW_TO_START = {
  PostgreSQL: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  Redis: 'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
  NATS: 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log',
};

function withTimeout(promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function checkPostgres() {
  const client = new Client({ connectionString: `${pgServer}/postgres`, connectionTimeoutMillis: TIMEOUT_MS });
  try {
    await withTimeout(client.connect().then(() => client.query('SELECT 1')));
  } finally {
    client.end().catch(() => undefined);
  }
}

/** RESP over a bare socket: AUTH when the URL has credentials, then PING must answer +PONG. */
function checkRedis() {
  const url = new URL(redisUrl);
  const resp = (...args) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  const auth = url.password ? resp('AUTH', ...(url.username ? [decodeURIComponent(url.username)] : []), decodeURIComponent(url.password)) : '';
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port || 6379), url.hostname, () => socket.write(auth + resp('PING')));
    socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    let reply = '';
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('+PONG')) {
        socket.end();
        resolve();
      } else if (reply.startsWith('-') || reply.includes('\r\n-')) {
        socket.destroy(new Error(`answered ${reply.trim().split('\r\n').pop()}`));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('closed the connection without answering PING')));
  });
}

async function checkNats() {
  const nc = await withTimeout(connect({ servers: natsUrl.split(','), timeout: TIMEOUT_MS, reconnect: false }));
  await withTimeout(nc.flush());
  await nc.close();
}

async function dropStaleTestDatabases() {
  const client = new Client({ connectionString: `${pgServer}/postgres`, connectionTimeoutMillis: TIMEOUT_MS });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT datname FROM pg_database WHERE datname LIKE 'svc\\_test\\_%'");
    for (const { datname } of rows) {
      const match = /^svc_test_.+_([0-9a-z]+)_[0-9a-f]{6}$/.exec(datname);
      const createdAt = match ? parseInt(match[1], 36) : NaN;
      if (!(createdAt > Date.UTC(2020, 0, 1)) || Date.now() - createdAt < STALE_AFTER_MS) continue;
      await client.query(`DROP DATABASE IF EXISTS "${datname.replace(/"/g, '""')}" WITH (FORCE)`).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}

module.exports = async function globalSetup() {
  execFileSync(process.execPath, [path.resolve(__dirname, '../../../../tools/prisma/generate.js')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const checks = [
    ['PostgreSQL', `${pgServer} (TEST_PG_URL)`, checkPostgres],
    ['Redis', `${redisUrl} (REDIS_URL)`, checkRedis],
    ['NATS', `${natsUrl} (NATS_URL)`, checkNats],
  ];
  const results = await Promise.all(
    checks.map(([name, where, check]) =>
      check().then(
        () => null,
        (err) => ({ name, where, reason: err?.message || String(err) }),
      ),
    ),
  );
  const missing = results.filter(Boolean);
  if (missing.length) {
    const lines = missing.map((m) => `  - ${m.name} at ${m.where}: ${m.reason}\n      start it: ${HOW_TO_START[m.name]}`);
    throw new Error(`Integration tests need local services that did not answer:\n${lines.join('\n')}`);
  }
  await dropStaleTestDatabases();
};
