import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import Redis from 'ioredis';
import { connect } from 'nats';
import { REPO_ROOT } from '@svc/config';
import { dropDatabase } from '@svc/database';
import { freePort, runBench, startFakeBilling, startPrivateNats } from '@svc/testing';
import { chatBody, estimateOf, GatewayClient, Outcome, runConcurrently } from './http';
import { BenchProcess, openLog, startProcess } from './processes';
import { cpuMs } from './proc-cpu';
import { ms, summarize, Summary } from './stats';

const USAGE = `Usage: npm run bench:ratelimit -- [--requests <n>] [--warmup <n>] [--concurrency <n>] [--loaded-seconds <s>]
  --requests        sequential requests per gateway for the latency comparison (default 3000)
  --warmup          warm-up requests per gateway (default 300)
  --concurrency     connections per gateway in the loaded comparison (default 16)
  --loaded-seconds  seconds per loaded run; two runs per gateway, interleaved (default 3)`;

const say = (msg: string) => process.stderr.write(`[bench:ratelimit] ${msg}\n`);
const run = promisify(execFile);
const cleanups: Array<() => Promise<void>> = [];
const MAX = '2000000000';

interface Options {
  requests: number;
  warmup: number;
  concurrency: number;
  loadedSeconds: number;
}

function options(): Options | undefined {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string' },
      warmup: { type: 'string' },
      concurrency: { type: 'string' },
      'loaded-seconds': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return undefined;
  const int = (name: string, v: string | undefined, fallback: number) => {
    const n = v === undefined ? fallback : Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
    return n;
  };
  return {
    requests: int('requests', values.requests, 3000),
    warmup: int('warmup', values.warmup, 300),
    concurrency: int('concurrency', values.concurrency, 16),
    loadedSeconds: int('loaded-seconds', values['loaded-seconds'], 3),
  };
}

async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<void> {
  const opts = options();
  if (!opts) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const root = REPO_ROOT;
  const stamp = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const prefix = `svc_bench_rl_${stamp}:`;
  const pg = (process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432').replace(/\/+$/, '');
  const keysDb = `${pg}/svc_bench_rl_keys_${stamp}`;
  const logDir = path.join(root, 'tmp/bench-ratelimit');
  mkdirSync(logDir, { recursive: true });
  const log = openLog(path.join(logDir, 'processes.log'));
  cleanups.push(async () => {
    log.end();
  });

  const nats = await startPrivateNats();
  cleanups.push(() => nats.stop());
  const nc = await connect({ servers: nats.url });
  const stopBilling = startFakeBilling(nc);
  cleanups.push(async () => {
    stopBilling();
    await nc.close();
  });
  const upstream = async (name: string, extra: string[]) => {
    const p = await startProcess(
      root,
      name,
      'dist/bench/fake-upstream/src/main.js',
      ['--port', '0', '--tokens', '8', ...extra],
      process.env,
      log,
      /OpenAI base URL (\S+)\)/,
    );
    cleanups.push(p.stop);
    return (p.match as RegExpExecArray)[1];
  };
  const [fastUrl, slowUrl] = await Promise.all([upstream('fast upstream', []), upstream('slow upstream', ['--first-token-delay-ms', '3000'])]);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NATS_URL: nats.url,
    SVC_CATALOG_PATH: path.join(root, 'bench/ratelimit/catalog.yaml'),
    BENCH_FAST_UPSTREAM_URL: fastUrl,
    BENCH_SLOW_UPSTREAM_URL: slowUrl,
    KEYS_DATABASE_URL: keysDb,
    REDIS_KEY_PREFIX: prefix,
    LOG_LEVEL: 'info',
  };
  cleanups.push(() => dropDatabase(keysDb).catch(() => undefined));
  say(`starting keys, chat and three gateways (log: ${path.relative(root, logDir)}/processes.log)`);
  const service = async (name: string) => {
    const p = await startProcess(root, name, `dist/apps/${name}/src/main.js`, [], env, log, new RegExp(`${name} service ready`));
    cleanups.push(p.stop);
  };
  await Promise.all([service('keys'), service('chat')]);
  const gateway = async (name: string, extra: Record<string, string>): Promise<{ origin: string; process: BenchProcess }> => {
    const port = await freePort();
    // Access logs off (warn): they would cost both sides the same, and only add noise.
    const p = await startProcess(
      root,
      name,
      'dist/apps/gateway/src/main.js',
      [],
      { ...env, LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1', ...extra },
      log,
    );
    cleanups.push(p.stop);
    const origin = `http://127.0.0.1:${port}`;
    await waitForHttp(`${origin}/api/v1/models`);
    return { origin, process: p };
  };
  const [plain, limitedA, limitedB] = await Promise.all([
    gateway('gateway (limits off)', { RATE_LIMITS_ENABLED: 'false', ABUSE_PROTECTION_ENABLED: 'false' }),
    gateway('gateway A (limits on)', {}),
    gateway('gateway B (limits on)', {}),
  ]);

  /** The operator CLI (`npm run svc --`), as an operator sets limits. */
  const svc = async <T>(...args: string[]): Promise<T> => {
    const { stdout } = await run(process.execPath, [path.join(root, 'dist/apps/keys/src/cli/main.js'), ...args], { cwd: root, env });
    return JSON.parse(stdout) as T;
  };
  const newKey = async (name: string, ...limits: string[][]) => {
    const account = (await svc<{ id: string }>('accounts', 'create', '--name', name)).id;
    for (const l of limits) await svc('limits', 'set', '--account', account, ...l);
    return (await svc<{ apiKey: string }>('keys', 'create', '--account', account, '--type', 'INFERENCE', '--description', name)).apiKey;
  };

  // 1. Latency added on the hot path: the same request, one connection each, alternating.
  say(`latency: ${opts.requests} sequential requests per gateway (after ${opts.warmup} warm-up), alternating`);
  const latencyKey = await newKey('bench latency', ['--rpm', MAX, '--tpm', MAX]);
  const body = chatBody('bench-fast', 16);
  const plainOne = new GatewayClient(plain.origin, 1);
  const limitedOne = new GatewayClient(limitedA.origin, 1);
  cleanups.push(
    () => plainOne.close(),
    () => limitedOne.close(),
  );
  for (let i = 0; i < opts.warmup; i++) {
    await plainOne.chat(latencyKey, body);
    await limitedOne.chat(latencyKey, body);
  }
  const redisInfo = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  cleanups.push(async () => {
    await deleteByPrefix(redisInfo, prefix);
    redisInfo.disconnect();
  });
  const redisPid = Number(/process_id:(\d+)/.exec(await redisInfo.info('server'))?.[1]);
  const cpuBefore = [cpuMs(plain.process.pid), cpuMs(limitedA.process.pid), cpuMs(redisPid)];
  const plainTimes: Outcome[] = [];
  const limitedTimes: Outcome[] = [];
  for (let i = 0; i < opts.requests; i++) {
    if (i % 2 === 0) {
      plainTimes.push(await plainOne.chat(latencyKey, body));
      limitedTimes.push(await limitedOne.chat(latencyKey, body));
    } else {
      limitedTimes.push(await limitedOne.chat(latencyKey, body));
      plainTimes.push(await plainOne.chat(latencyKey, body));
    }
  }
  const cpuAfter = [cpuMs(plain.process.pid), cpuMs(limitedA.process.pid), cpuMs(redisPid)];
  const failed = [...plainTimes, ...limitedTimes].filter((o) => o.status !== 200);
  if (failed.length > 0) throw new Error(`${failed.length} latency requests did not answer 200, e.g. ${failed[0].status} ${failed[0].error}`);
  const unloaded = { plain: summarize(plainTimes.map((o) => o.ms)), limited: summarize(limitedTimes.map((o) => o.ms)) };
  const cpuPerRequest = {
    plain: (cpuAfter[0] - cpuBefore[0]) / opts.requests,
    limited: (cpuAfter[1] - cpuBefore[1]) / opts.requests,
    redis: (cpuAfter[2] - cpuBefore[2]) / opts.requests,
  };

  // 2. The same under load: interleaved runs of `concurrency` connections per gateway.
  say(`loaded: ${opts.concurrency} connections, ${opts.loadedSeconds} s per run, runs interleaved`);
  const plainMany = new GatewayClient(plain.origin, opts.concurrency);
  const limitedMany = new GatewayClient(limitedA.origin, opts.concurrency);
  cleanups.push(
    () => plainMany.close(),
    () => limitedMany.close(),
  );
  const loadedRun = async (client: GatewayClient) => {
    const until = Date.now() + opts.loadedSeconds * 1000;
    const out: Outcome[] = [];
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (Date.now() < until) out.push(await client.chat(latencyKey, body));
      }),
    );
    return out;
  };
  const loadedPlain: Outcome[] = [];
  const loadedLimited: Outcome[] = [];
  for (let round = 0; round < 2; round++) {
    loadedPlain.push(...(await loadedRun(plainMany)));
    loadedLimited.push(...(await loadedRun(limitedMany)));
  }
  const loadedSeconds = 2 * opts.loadedSeconds;
  const loaded = {
    plain: { ...summarize(loadedPlain.map((o) => o.ms)), rps: loadedPlain.length / loadedSeconds, non200: loadedPlain.filter((o) => o.status !== 200).length },
    limited: {
      ...summarize(loadedLimited.map((o) => o.ms)),
      rps: loadedLimited.length / loadedSeconds,
      non200: loadedLimited.filter((o) => o.status !== 200).length,
    },
  };

  // 3. Accuracy: bursts far over a limit, split across the two limited gateways.
  const a = new GatewayClient(limitedA.origin, 128);
  const b = new GatewayClient(limitedB.origin, 128);
  cleanups.push(
    () => a.close(),
    () => b.close(),
  );
  const split = (key: string, payload: string) => (i: number) => (i % 2 === 0 ? a : b).chat(key, payload);
  const accuracy: Array<{ limit: string; allowed: number; sent: number; admitted: number; refused429: number; other: number; ratio: number }> = [];
  for (const n of [50, 200, 500]) {
    say(`accuracy: RPM ${n}, ${5 * n} requests over both gateways, 128 in flight`);
    const key = await newKey(`bench rpm ${n}`, ['--target', 'model:bench-fast', '--rpm', String(n), '--tpm', MAX]);
    const outcomes = await runConcurrently(5 * n, 128, split(key, body));
    accuracy.push(tally(`RPM ${n}`, n, outcomes));
  }
  const content = 'x';
  const cost = estimateOf(content, 100);
  for (const allowed of [20, 50]) {
    const tpm = allowed * cost + Math.floor(cost / 2);
    say(`accuracy: TPM ${tpm} (${allowed} reservations of ${cost} tokens fit), ${5 * allowed} requests at once, answers held 3 s`);
    const key = await newKey(`bench tpm ${allowed}`, ['--target', 'model:bench-slow', '--rpm', MAX, '--tpm', String(tpm)]);
    const outcomes = await runConcurrently(5 * allowed, 5 * allowed, split(key, chatBody('bench-slow', 100, content)));
    accuracy.push(tally(`TPM ${tpm}`, allowed, outcomes));
  }

  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const added = (p: keyof Summary) => unloaded.limited[p] - unloaded.plain[p];
  const lines = [
    '',
    `Rate limits: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, load average ${load}`,
    '',
    `Added latency, 1 connection, ${opts.requests} requests per gateway (limits off vs on, alternating):`,
    `  p50  ${ms(unloaded.plain.p50)} -> ${ms(unloaded.limited.p50)}   added ${ms(added('p50'))}   target < 0.5 ms: ${added('p50') < 0.5 ? 'PASS' : 'FAIL'}`,
    `  p90  ${ms(unloaded.plain.p90)} -> ${ms(unloaded.limited.p90)}   added ${ms(added('p90'))}`,
    `  p99  ${ms(unloaded.plain.p99)} -> ${ms(unloaded.limited.p99)}   added ${ms(added('p99'))}`,
    `  mean ${ms(unloaded.plain.mean)} -> ${ms(unloaded.limited.mean)}   added ${ms(added('mean'))}`,
    `  gateway CPU per request ${ms(cpuPerRequest.plain)} -> ${ms(cpuPerRequest.limited)} (added ${ms(cpuPerRequest.limited - cpuPerRequest.plain)}); Redis CPU per request ${ms(cpuPerRequest.redis)} (shared Redis: an upper bound)`,
    '',
    `Under load, ${opts.concurrency} connections per gateway, ${loadedSeconds} s each (interleaved):`,
    `  RPS  ${loaded.plain.rps.toFixed(0)} -> ${loaded.limited.rps.toFixed(0)}`,
    `  p50  ${ms(loaded.plain.p50)} -> ${ms(loaded.limited.p50)}   added ${ms(loaded.limited.p50 - loaded.plain.p50)}`,
    `  p99  ${ms(loaded.plain.p99)} -> ${ms(loaded.limited.p99)}   added ${ms(loaded.limited.p99 - loaded.plain.p99)}`,
    ...(loaded.plain.non200 + loaded.limited.non200 > 0 ? [`  non-200 answers: ${loaded.plain.non200} (off), ${loaded.limited.non200} (on)`] : []),
    '',
    'Accuracy, bursts split across two gateway processes (admitted / allowed, target 1.000):',
    ...accuracy.map(
      (x) =>
        `  ${x.limit.padEnd(10)} allowed ${String(x.allowed).padStart(4)}  sent ${String(x.sent).padStart(5)}  admitted ${String(x.admitted).padStart(4)}  429 ${String(x.refused429).padStart(5)}  other ${x.other}  ratio ${x.ratio.toFixed(3)} ${x.ratio === 1 && x.other === 0 ? 'PASS' : 'FAIL'}`,
    ),
    '',
  ];
  process.stdout.write(lines.join('\n'));
  const out = path.join(root, 'bench/ratelimit/last-run.json');
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, loadAverage: os.loadavg() }, options: opts, unloaded, cpuPerRequest, loaded, accuracy }, null, 2)}\n`,
  );
  say(`results written to ${path.relative(root, out)}`);
  if (added('p50') >= 0.5 || accuracy.some((x) => x.ratio !== 1 || x.other !== 0)) process.exitCode = 1;
}

function tally(limit: string, allowed: number, outcomes: Outcome[]) {
  const admitted = outcomes.filter((o) => o.status === 200).length;
  const refused429 = outcomes.filter((o) => o.status === 429).length;
  return { limit, allowed, sent: outcomes.length, admitted, refused429, other: outcomes.length - admitted - refused429, ratio: admitted / allowed };
}

async function deleteByPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}

runBench('bench:ratelimit', main, cleanups);
