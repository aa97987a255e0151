// PostgreSQL 15 (Debian's binaries): a primary and a streaming standby, each with its own data
// directory and port. Replication is synchronous: the primary acknowledges a commit only once the
// standby has it on disk, so promoting the standby loses no acknowledged commit (a transaction
// that opts out with synchronous_commit=off, as billing's holds do, may be lost: docs/billing.md).
// The cost: while the standby is down, commits on the primary wait for it.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { layout } = require('./layout');
const { listening, running, startProcess, stopProcess, waitUntil } = require('./processes');

const BIN = process.env.PG_BIN_DIR || '/usr/lib/postgresql/15/bin';
const pgDir = path.join(layout.dir, 'pg');
const dataDir = (name) => path.join(pgDir, name);
const asRoot = process.getuid?.() === 0;

/** initdb and the server refuse to run as root: as root, they run as the `postgres` user. */
function owner() {
  if (!asRoot) return {};
  return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
}

function prepareDir() {
  fs.mkdirSync(pgDir, { recursive: true });
  const { uid, gid } = owner();
  if (asRoot) fs.chownSync(pgDir, uid, gid);
}

function run(binary, args) {
  execFileSync(path.join(BIN, binary), args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: pgDir, ...owner() });
}

const COMMON_SETTINGS = [
  'listen_addresses=127.0.0.1',
  `unix_socket_directories=${pgDir}`,
  'wal_level=replica',
  'max_wal_senders=10',
  'wal_keep_size=256MB',
  'hot_standby=on',
  'wal_log_hints=on',
  // two replicas of four database-backed services, each with its pools, plus the operator CLIs
  'max_connections=300',
];

async function startServer(name, roleSettings) {
  if (running(name)) return;
  const args = ['-D', dataDir(name), '-p', String(layout.pg[name].port), ...[...COMMON_SETTINGS, ...roleSettings].flatMap((s) => ['-c', s])];
  startProcess(name, path.join(BIN, 'postgres'), args, owner());
  await waitUntil(`PostgreSQL ${name}`, () => listening(layout.pg[name].port), 30_000, name);
}

/** The primary; a new data directory on first use. Its synchronous standby is named once that runs (startStandby). */
async function startPrimary(name) {
  prepareDir();
  if (!fs.existsSync(path.join(dataDir(name), 'PG_VERSION'))) run('initdb', ['-D', dataDir(name), '-A', 'trust', '-U', 'postgres', '-E', 'UTF8']);
  await startServer(name, ['synchronous_commit=on']);
}

/** The standby, copied afresh from the primary (pg_basebackup), streaming from it under its own name. */
async function startStandby(name, primary) {
  if (running(name)) return;
  fs.rmSync(dataDir(name), { recursive: true, force: true });
  run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(layout.pg[primary].port), '-U', 'postgres', '-D', dataDir(name), '-X', 'stream', '-c', 'fast']);
  // The copy names itself as the synchronous standby (the primary's ALTER SYSTEM): once promoted it
  // would wait for itself, so it starts without one and commits alone until a new standby runs.
  const autoConf = path.join(dataDir(name), 'postgresql.auto.conf');
  fs.writeFileSync(autoConf, fs.readFileSync(autoConf, 'utf8').replace(/^synchronous_standby_names.*$/gm, ''));
  fs.writeFileSync(path.join(dataDir(name), 'standby.signal'), '');
  if (asRoot) fs.chownSync(path.join(dataDir(name), 'standby.signal'), owner().uid, owner().gid);
  const conninfo = `host=127.0.0.1 port=${layout.pg[primary].port} user=postgres application_name=${name}`;
  await startServer(name, [`primary_conninfo=${conninfo}`]);
  await waitUntil(`${name} streaming from ${primary}`, () => replicationState(primary).startsWith(`${name} streaming`), 30_000, name);
  // From now on the primary acknowledges a commit once this standby has flushed it.
  sql(primary, `ALTER SYSTEM SET synchronous_standby_names = '${name}'`);
  sql(primary, 'SELECT pg_reload_conf()');
  await waitUntil(`${name} as synchronous standby`, () => replicationState(primary) === `${name} streaming sync`, 30_000, name);
}

/** Runs one SQL statement on a server directly (not through the proxy); returns its first value. */
function sql(name, statement) {
  return execFileSync('psql', ['-h', '127.0.0.1', '-p', String(layout.pg[name].port), '-U', 'postgres', '-d', 'postgres', '-Atc', statement], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** Whether the standby streams from the primary as its synchronous standby. */
function replicationState(primary) {
  try {
    return sql(primary, "SELECT application_name || ' ' || state || ' ' || sync_state FROM pg_stat_replication") || 'no standby connected';
  } catch {
    return 'unreachable';
  }
}

const promote = (name) => sql(name, 'SELECT pg_promote(true, 60)');
const stopPostgres = (name, signal = 'SIGINT') => stopProcess(name, signal, 30_000);

module.exports = { startPrimary, startStandby, promote, replicationState, sql, stopPostgres };
