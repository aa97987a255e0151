#!/usr/bin/env node
// `npm run cluster -- up|down|status|env|kill <part>|start <part>|failover` (docs/cluster.md):
// the clustered topology on one machine, as host processes under tmp/cluster.
const fs = require('node:fs');
const { layout } = require('./layout');
const { pidOf, running, stopProcess } = require('./processes');
const { readState, writeState } = require('./state');
const { startNats, stopNats, waitForMesh } = require('./nats');
const { startRedis, stopRedis } = require('./redis');
const { startPrimary, startStandby, promote, replicationState, stopPostgres } = require('./postgres');
const { startHaproxy, stopHaproxy, haproxyCommand, serverStates } = require('./haproxy');
const { startPlatform, stopPlatform, clusterEnv, adminKey, pidOnPort } = require('./platform');

const say = (msg) => process.stdout.write(`[cluster] ${msg}\n`);
const PARTS = ['platform', 'haproxy', ...layout.nats.map((n) => n.name), 'redis', ...Object.keys(layout.pg)];

async function up(fresh) {
  const started = Date.now();
  if (fresh) fs.rmSync(layout.dir, { recursive: true, force: true });
  fs.mkdirSync(layout.dir, { recursive: true });
  const state = readState();
  writeState(state);
  say('NATS: three servers, one cluster');
  await Promise.all(layout.nats.map((n) => startNats(n.name)));
  await waitForMesh();
  say('Redis');
  await startRedis();
  say(`PostgreSQL: primary ${state.primary}, synchronous standby ${state.standby}`);
  await startPrimary(state.primary);
  await startStandby(state.standby, state.primary);
  say('HAProxy');
  await startHaproxy(state);
  say('platform: two gateways, two replicas of every service (building, migrating, starting)');
  await startPlatform();
  say(`ready in ${Math.round((Date.now() - started) / 1000)} s: ${layout.apiUrl} (ADMIN key in ${layout.adminKeyPath})`);
}

async function down(wipe) {
  say('stopping the platform');
  await stopPlatform();
  await stopHaproxy();
  await Promise.all(layout.nats.map((n) => stopNats(n.name)));
  await stopRedis();
  const { primary, standby } = readState();
  await stopPostgres(standby);
  await stopPostgres(primary);
  const left = PARTS.filter(running);
  if (left.length) throw new Error(`still running: ${left.join(', ')}`);
  if (wipe) fs.rmSync(layout.dir, { recursive: true, force: true });
  say(wipe ? 'stopped; tmp/cluster removed' : 'stopped (data kept in tmp/cluster; `down --wipe` removes it)');
}

async function status() {
  const state = readState();
  for (const part of PARTS)
    say(
      `${part.padEnd(9)} ${running(part) ? `running (pid ${pidOf(part)})` : 'stopped'}${layout.pg[part] ? ` ${part === state.primary ? 'primary' : 'standby'}` : ''}`,
    );
  for (const [i, port] of layout.gateways.entries())
    say(`gateway-${i + 1} ${pidOnPort(port) ? `listening on ${port} (pid ${pidOnPort(port)})` : 'not listening'}`);
  if (running(state.primary)) say(`replication from ${state.primary}: ${replicationState(state.primary)}`);
  if (running('haproxy')) for (const line of await serverStates()) say(`haproxy ${line}`);
}

/** SIGKILL of one part, as a crash: nats-<n>, pg-primary, pg-standby, redis, haproxy or gateway-<n> (restarted by the platform's supervisor). */
async function kill(part) {
  const gateway = /^gateway-(\d)$/.exec(part);
  if (gateway) {
    const pid = pidOnPort(layout.gateways[Number(gateway[1]) - 1]);
    if (!pid) throw new Error(`${part} is not running`);
    process.kill(pid, 'SIGKILL');
    return say(`${part} (pid ${pid}) killed`);
  }
  const name = pgAlias(part);
  if (!PARTS.includes(name)) throw new Error(`unknown part "${part}"`);
  await stopProcess(name, 'SIGKILL');
  say(`${name} killed`);
}

async function start(part) {
  const nats = layout.nats.find((n) => n.name === part);
  if (nats) return startNats(part);
  if (part === 'redis') return startRedis();
  throw new Error(`start: one of ${layout.nats.map((n) => n.name).join(', ')}, redis (the others start with \`up\`)`);
}

/**
 * Promotes the standby and points the PostgreSQL proxy at it. The old primary is stopped first if it
 * still runs (two primaries must never take writes); the next `up` makes it the new standby.
 */
async function failover() {
  const { primary, standby } = readState();
  const started = Date.now();
  if (running(primary)) await stopPostgres(primary, 'SIGKILL');
  promote(standby);
  await haproxyCommand(`disable server postgres/${primary}`);
  await haproxyCommand(`enable server postgres/${standby}`);
  // An enabled server starts DOWN until two checks pass (2 s): it is known to answer, so at once.
  await haproxyCommand(`set server postgres/${standby} health up`);
  writeState({ primary: standby, standby: primary, failedOverAt: new Date().toISOString() });
  say(`${standby} promoted and serving through 127.0.0.1:${layout.pgProxyPort} in ${Date.now() - started} ms; \`up\` makes ${primary} its standby again`);
}

const pgAlias = (part) => ({ 'pg-primary': readState().primary, 'pg-standby': readState().standby })[part] ?? part;

async function main([command, arg]) {
  switch (command) {
    case 'up':
      return up(arg === '--fresh');
    case 'down':
      return down(arg === '--wipe');
    case 'status':
      return status();
    case 'env':
      return Object.entries({ ...clusterEnv(), SVC_ADMIN_KEY: adminKey(), API_URL: layout.apiUrl }).forEach(([k, v]) => process.stdout.write(`${k}=${v}\n`));
    case 'kill':
      return kill(arg);
    case 'start':
      return start(arg);
    case 'failover':
      return failover();
    default:
      process.stdout.write('usage: npm run cluster -- up [--fresh] | down [--wipe] | status | env | kill <part> | start <part> | failover\n');
      process.exitCode = command ? 1 : 0;
  }
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`[cluster] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
