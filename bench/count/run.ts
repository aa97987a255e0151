// What one request costs each process at one connection, counted rather than timed (issue 30):
// CPU, wake-ups (voluntary context switches), system calls (strace -c), NATS messages by subject,
// Redis commands and Postgres transactions and rows, per request. See README.md.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { connect } from 'nats';
import { errorMessage } from '@svc/errors';
import { Agent, request } from 'undici';
import { benchAccounts } from '../compare/src/accounts';
import { chatTarget } from '../compare/src/chat-request';
import { processLabel, processTree, readAllStats } from '../compare/src/gateway-overhead';
import { BENCH_DATABASES } from '../compare/src/platform-env';
import { startSystems } from '../compare/src/systems';

const here = path.resolve(__dirname, '../..');
/** The checkout whose platform is counted (BENCH_ROOT: another commit's built checkout, for a before/after pair). */
const root = path.resolve(process.env.BENCH_ROOT ?? here);
const REQUESTS = Number(process.env.REQUESTS ?? 1000);
const STRACED = Number(process.env.STRACED ?? 200);
const STREAM = process.env.STREAM === '1';
const cleanups: (() => Promise<void>)[] = [];
const say = (m: string) => process.stderr.write(`[bench:count] ${m}\n`);

interface Counters {
  cpuMs: number;
  wakeups: number;
  preempted: number;
}

/** CPU (utime + stime) and context switches of a process, summed over its threads. */
function counters(pid: number): Counters {
  let wakeups = 0;
  let preempted = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
    wakeups += Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
    preempted += Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(stat[11]) + Number(stat[12]);
  return { cpuMs: ticks * 10, wakeups, preempted };
}

function redisCommands(port: string): Record<string, number> {
  const out = execFileSync('redis-cli', ['-p', port, 'info', 'commandstats']).toString();
  return Object.fromEntries([...out.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].map((m) => [m[1], Number(m[2])]));
}

function postgresCounts(pgUrl: string): Record<string, number> {
  const names = Object.values(BENCH_DATABASES)
    .map((d) => `'${d}'`)
    .join(',');
  const sql = `SELECT datname, xact_commit, tup_inserted, tup_updated FROM pg_stat_database WHERE datname IN (${names})`;
  const out = execFileSync('psql', [pgUrl, '-At', '-c', sql]).toString();
  const counts: Record<string, number> = {};
  for (const line of out.trim().split('\n')) {
    const [db, commits, inserted, updated] = line.split('|');
    const short = db.replace('svc_bench_compare_', '');
    Object.assign(counts, {
      [`${short} transactions`]: Number(commits),
      [`${short} rows inserted`]: Number(inserted),
      [`${short} rows updated`]: Number(updated),
    });
  }
  return counts;
}

const perRequest = (after: Record<string, number>, before: Record<string, number>, n: number) =>
  Object.entries(after)
    .map(([k, v]) => [k, (v - (before[k] ?? 0)) / n] as const)
    .filter(([, v]) => v >= 0.005)
    .sort((a, b) => b[1] - a[1]);

async function main(): Promise<void> {
  const logDir = path.join(here, 'tmp/bench-count');
  mkdirSync(logDir, { recursive: true });
  const systems = await startSystems({ root, logDir, tokens: 8, startTimeoutSeconds: 600, cleanups, say });
  const [account] = await benchAccounts({
    root,
    env: systems.cliEnv,
    count: 1,
    file: path.join(logDir, 'accounts.json'),
    reseed: false,
    works: async () => true,
    say,
  });
  const target = chatTarget('platform', { stream: STREAM, accounts: 1 }, systems.endpoints, [account.apiKey]);
  const agent = new Agent({ connections: 1 });
  const one = async () => {
    const res = await request(target.url, { method: 'POST', headers: target.headers, body: target.body, dispatcher: agent });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text.slice(0, 300)}`);
  };
  for (let i = 0; i < 300; i++) await one();

  const tree = processTree(readAllStats(), systems.cpu.platformRoot).map((s) => ({ pid: s.pid, label: processLabel(s.pid, s.comm) }));
  const processes = [
    ...tree.filter((p) => ['gateway', 'chat', 'billing', 'keys'].includes(p.label)),
    { pid: systems.cpu.nats!, label: 'nats-server' },
    { pid: systems.cpu.redis!, label: 'redis' },
  ];
  const redisPort = /(?:--port |:)(\d+)/.exec(readFileSync(`/proc/${systems.cpu.redis}/cmdline`, 'utf8').split('\0').join(' '))?.[1] ?? '6379';
  const pgUrl = `${process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432'}/postgres`;

  // Every NATS message, by subject (replies to inboxes together), from a listener of its own.
  const nc = await connect({ servers: String(systems.cliEnv.NATS_URL) });
  const subjects: Record<string, number> = {};
  nc.subscribe('>', {
    callback: (_err, msg) => {
      const subject = msg.subject.startsWith('_INBOX.') ? '_INBOX (replies)' : msg.subject;
      subjects[subject] = (subjects[subject] ?? 0) + 1;
    },
  });
  await nc.flush();

  const before = processes.map((p) => counters(p.pid));
  const redisBefore = redisCommands(redisPort);
  const pgBefore = postgresCounts(pgUrl);
  const started = process.hrtime.bigint();
  for (let i = 0; i < REQUESTS; i++) await one();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  await new Promise((r) => setTimeout(r, 500)); // settlement windows close
  const after = processes.map((p) => counters(p.pid));
  const redisAfter = redisCommands(redisPort);
  const pgAfter = postgresCounts(pgUrl);
  await nc.close();

  const lines = [
    `bench:count: ${REQUESTS} sequential ${STREAM ? 'streaming' : 'non-streaming'} requests on one connection, ${(ms / REQUESTS).toFixed(3)} ms each (${path.relative(here, root) || 'this checkout'})`,
    '',
    '| process | CPU ms/req | wake-ups/req | preempted/req |',
    '|---|---:|---:|---:|',
    ...processes.map(
      (p, i) =>
        `| ${p.label} | ${((after[i].cpuMs - before[i].cpuMs) / REQUESTS).toFixed(3)} | ${((after[i].wakeups - before[i].wakeups) / REQUESTS).toFixed(2)} | ${((after[i].preempted - before[i].preempted) / REQUESTS).toFixed(2)} |`,
    ),
    '',
    `NATS messages/req: ${Object.entries(subjects)
      .map(([k, v]) => [k, v / REQUESTS] as const)
      .filter(([, v]) => v >= 0.005)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}`,
    `Redis commands/req (a script's own commands included): ${perRequest(redisAfter, redisBefore, REQUESTS)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}`,
    `Postgres/req: ${perRequest(pgAfter, pgBefore, REQUESTS)
      .map(([k, v]) => `${k} ${v.toFixed(3)}`)
      .join(', ')}`,
  ];

  if (STRACED > 0) {
    const dir = path.join(logDir, 'strace');
    mkdirSync(dir, { recursive: true });
    const tracers: ChildProcess[] = processes.map((p) =>
      spawn('strace', ['-c', '-f', '-p', String(p.pid), '-o', path.join(dir, `${p.label}.txt`)], { stdio: 'ignore' }),
    );
    await new Promise((r) => setTimeout(r, 1500));
    for (let i = 0; i < STRACED; i++) await one();
    for (const t of tracers) t.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 1500));
    lines.push('', `System calls/req (strace -c over ${STRACED} more requests; strace slows every process, so only the counts mean anything):`);
    for (const p of processes) {
      const rows = [...readFileSync(path.join(dir, `${p.label}.txt`), 'utf8').matchAll(/^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$/gm)].map(
        (m) => [m[2], Number(m[1])] as const,
      );
      const total = rows.find(([name]) => name === 'total')?.[1] ?? 0;
      const top = rows
        .filter(([name]) => name !== 'total')
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([name, calls]) => `${name} ${(calls / STRACED).toFixed(1)}`);
      lines.push(`- ${p.label}: ${(total / STRACED).toFixed(1)} (${top.join(', ')})`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().then(
  async () => {
    for (const stop of cleanups.reverse()) await stop().catch(() => undefined);
    process.exit(0);
  },
  async (err) => {
    process.stderr.write(`${err instanceof Error && err.stack ? err.stack : errorMessage(err)}\n`);
    for (const stop of cleanups.reverse()) await stop().catch(() => undefined);
    process.exit(1);
  },
);
