// What one request costs each process at one connection, counted rather than timed (issue 30):
// CPU, wake-ups (voluntary context switches), system calls (strace -c), NATS messages by subject,
// Redis commands and Postgres transactions and rows, per request. See README.md.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { connect } from 'nats';
import { Agent, request } from 'undici';
import { chatTarget } from '../compare/src/chat-request';
import { processLabel, processTree, readAllStats } from '../compare/src/gateway-overhead';
import { BENCH_DATABASES } from '../compare/src/platform-env';
import { counters } from './counters';
import { runMain, startWithHotAccount } from './harness';
import { profileWhile } from './profile';

const here = path.resolve(__dirname, '../..');
/** The checkout whose platform is counted (BENCH_ROOT: another commit's built checkout, for a before/after pair). */
const root = path.resolve(process.env.BENCH_ROOT ?? here);
const REQUESTS = Number(process.env.REQUESTS ?? 1000);
const STRACED = Number(process.env.STRACED ?? 200);
const STREAM = process.env.STREAM === '1';
const TRACED = Number(process.env.TRACED ?? 0);
const PROFILE = (process.env.PROFILE ?? '').split(',').filter(Boolean);
/** Requests before counting: V8 compiles optimized code only after code has run a while (about 4,000 requests here, bench/RESULTS.md). */
const WARMUP = Number(process.env.WARMUP ?? 5000);
const cleanups: (() => Promise<void>)[] = [];
const say = (m: string) => process.stderr.write(`[bench:count] ${m}\n`);

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
  const { systems, account } = await startWithHotAccount(root, logDir, cleanups, say);
  const target = chatTarget('platform', { stream: STREAM, accounts: 1 }, systems.endpoints, [account.apiKey]);
  const agent = new Agent({ connections: 1 });
  const one = async () => {
    const res = await request(target.url, { method: 'POST', headers: target.headers, body: target.body, dispatcher: agent });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text.slice(0, 300)}`);
  };
  for (let i = 0; i < WARMUP; i++) await one();

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
  for (const label of PROFILE) {
    // A CPU profile of one process over REQUESTS more requests (PROFILE=gateway,chat: one at a time).
    const target = processes.find((p) => p.label === label);
    if (!target) throw new Error(`PROFILE: no process ${label} (${processes.map((p) => p.label).join(', ')})`);
    const file = path.join(logDir, `${label}.cpuprofile`);
    const summary = await profileWhile(target.pid, file, async () => {
      for (let i = 0; i < REQUESTS; i++) await one();
    });
    lines.push('', `CPU profile of ${label} over ${REQUESTS} more requests (${path.relative(here, file)}):`, summary);
  }
  if (TRACED > 0) {
    // Every system call of each process, in order, with its thread and time, over a few requests:
    // what a count above is made of.
    const dir = path.join(logDir, 'trace');
    mkdirSync(dir, { recursive: true });
    const tracers: ChildProcess[] = processes.map((p) =>
      spawn('strace', ['-f', '-tt', '-s', '0', '-yy', '-p', String(p.pid), '-o', path.join(dir, `${p.label}.txt`)], { stdio: 'ignore' }),
    );
    await new Promise((r) => setTimeout(r, 1500));
    for (let i = 0; i < TRACED; i++) await one();
    for (const t of tracers) t.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 500));
    lines.push('', `Every system call over ${TRACED} more requests, per process: ${path.relative(here, dir)}/<process>.txt`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

runMain(main, cleanups);
