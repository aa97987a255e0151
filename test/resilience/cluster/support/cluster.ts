import { execFile, execFileSync } from 'node:child_process';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@svc/config';

const run = promisify(execFile);

/** `npm run cluster -- <args>` (infra/cluster/cluster.js); resolves with what it printed. */
export async function clusterCli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [path.join(REPO_ROOT, 'infra/cluster/cluster.js'), ...args], { cwd: REPO_ROOT });
  return stdout;
}

/** The cluster's addresses and ADMIN key, as `npm run cluster -- env` prints them. */
export async function clusterEnv(): Promise<Record<string, string>> {
  const lines = (await clusterCli('env')).trim().split('\n');
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/** The balancer's address and the gateways' own, as in infra/cluster/layout.js. */
export const BALANCER = 'http://127.0.0.1:3101/api/v1';
export const GATEWAYS = ['http://127.0.0.1:3111/api/v1', 'http://127.0.0.1:3112/api/v1'];
const STATS = 'http://127.0.0.1:3109/;csv';

/** One server's row of HAProxy's statistics (CSV), by column name; `server` is e.g. `gateways/gateway-1`. */
async function stats(server: string): Promise<(column: string) => string | undefined> {
  const csv = await (await fetch(STATS)).text();
  const [header, ...rows] = csv.replace(/^# /, '').split('\n');
  const cols = header.split(',');
  const [proxy, name] = server.split('/');
  const row = rows.map((r) => r.split(',')).find((r) => r[cols.indexOf('pxname')] === proxy && r[cols.indexOf('svname')] === name);
  return (column) => row?.[cols.indexOf(column)];
}

/** HAProxy's view of one server ("UP", "DOWN", "MAINT", ...). */
export const balancerState = async (server: string): Promise<string> => (await stats(server))('status') ?? 'unknown';

/** Requests HAProxy has sent to one server so far (its `stot` counter). */
export const sentTo = async (server: string): Promise<number> => Number((await stats(server))('stot') ?? 0);

/** The platform supervisor's log: a restarted process prints a line there. */
export const platformLog = (): string => readFileSync(path.join(REPO_ROOT, 'tmp/cluster/logs/platform.log'), 'utf8');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 50 ms; resolves with the milliseconds it took, or null after `timeoutMs`. */
export async function timeUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<number | null> {
  const started = Date.now();
  for (; Date.now() - started < timeoutMs; await sleep(50)) if (await check().catch(() => false)) return Date.now() - started;
  return null;
}

/**
 * A SIGKILL ready to fire, so the fault's moment is exact (the CLI's own start takes a few hundred
 * ms on a busy machine): `gateway-<n>` (the process on its port), `nats-<n>`, `pg1`/`pg2` (their
 * whole process group, as a crash of the server takes its backends).
 */
export function armKill(part: string): () => void {
  const gateway = /^gateway-(\d)$/.exec(part);
  if (gateway) {
    const port = new URL(GATEWAYS[Number(gateway[1]) - 1]).port;
    const pid = /pid=(\d+)/.exec(execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' }))?.[1];
    if (!pid) throw new Error(`${part} is not listening`);
    return () => process.kill(Number(pid), 'SIGKILL');
  }
  const pid = Number(readFileSync(path.join(REPO_ROOT, 'tmp/cluster/run', `${part}.pid`), 'utf8'));
  return () => process.kill(-pid, 'SIGKILL');
}

/** Which PostgreSQL server is the primary now (tmp/cluster/state.json). */
export const pgPrimary = (): string => (JSON.parse(readFileSync(path.join(REPO_ROOT, 'tmp/cluster/state.json'), 'utf8')) as { primary: string }).primary;

/** Resolves once nothing accepts connections on 127.0.0.1:port any more (a killed process's sockets are closed). */
export async function portClosed(port: number): Promise<void> {
  const refused = () =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', () => resolve(true));
    });
  while (!(await refused())) await sleep(5);
}

/**
 * Fires an armed kill and resolves once the process's port is closed, with that moment on
 * `now`'s clock (the fault's moment: until then the dying process still accepts connections).
 */
export async function crash(kill: () => void, port: number, now: () => number): Promise<{ closedAt: number; closedAfterMs: number }> {
  const signalled = now();
  kill();
  await portClosed(port);
  const closedAt = now();
  return { closedAt, closedAfterMs: Math.round(closedAt - signalled) };
}
