// The floor of this platform's shape at one connection (issue 30): what an HTTP gateway that
// forwards over NATS to a service that calls the upstream costs when it does nothing else
// (floor-gateway.ts, floor-service.ts), beside Portkey, the platform and the upstream alone, in one
// run, taking turns. If the floor alone costs more than Portkey, no work removed from the
// platform's request brings it level with Portkey on that machine: only fewer processes would.
//
//   npm run build && npm run bench:floor                  # 2,000 requests per turn, 2 rounds
//   REQUESTS=5000 ROUNDS=3 PRIME=8000 npm run bench:floor
import path from 'node:path';
import { startBenchProcess } from '@svc/testing';
import { Agent, request } from 'undici';
import { chatTarget } from '../compare/src/chat-request';
import { freePort, processLabel, processTree, readAllStats, Target } from '../compare/src/gateway-overhead';
import { counters } from './counters';
import { runMain, startWithHotAccount } from './harness';

const root = path.resolve(__dirname, '../..');
const REQUESTS = Number(process.env.REQUESTS ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const WARMUP = 300;
/** Requests each system gets once before the first round: V8 compiles optimized code only for code that has run a while (bench/RESULTS.md). */
const PRIME = Number(process.env.PRIME ?? 5000);
const cleanups: (() => Promise<void>)[] = [];
const say = (m: string) => process.stderr.write(`[bench:floor] ${m}\n`);

interface Proc {
  pid: number;
  label: string;
}

interface Turn {
  p50: number;
  cpuMs: number;
  wakeups: number;
  /** CPU ms per request by process label. */
  split: Map<string, number>;
}

async function turn(target: Target, procs: () => Proc[], warmup = WARMUP): Promise<Turn> {
  const agent = new Agent({ connections: 1 });
  const one = async () => {
    const res = await request(target.url, { method: 'POST', headers: target.headers, body: target.body, dispatcher: agent });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !text.includes('tok0')) throw new Error(`${target.url}: ${res.statusCode} ${text.slice(0, 300)}`);
  };
  for (let i = 0; i < warmup; i++) await one();
  const list = procs();
  const read = () => list.map((p) => counters(p.pid));
  const before = read();
  const times = new Float64Array(REQUESTS);
  for (let i = 0; i < REQUESTS; i++) {
    const t = process.hrtime.bigint();
    await one();
    times[i] = Number(process.hrtime.bigint() - t) / 1e6;
  }
  const after = read();
  await agent.close();
  times.sort();
  const split = new Map<string, number>();
  list.forEach((p, i) => split.set(p.label, (split.get(p.label) ?? 0) + (after[i].cpuMs - before[i].cpuMs) / REQUESTS));
  const total = (k: 'cpuMs' | 'wakeups') => list.reduce((sum, _p, i) => sum + after[i][k] - before[i][k], 0) / REQUESTS;
  return { p50: times[Math.floor(REQUESTS / 2)], cpuMs: total('cpuMs'), wakeups: total('wakeups'), split };
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function main(): Promise<void> {
  const logDir = path.join(root, 'tmp/bench-floor');
  const { systems, account } = await startWithHotAccount(root, logDir, cleanups, say);
  const natsUrl = String(systems.cliEnv.NATS_URL);
  const floor = async (name: string, env: Record<string, string>) => {
    const started = await startBenchProcess(name, `bench/count/${name}.ts`, env, 'ready', { logDir });
    cleanups.push(started.stop);
    return started;
  };
  const service = await floor('floor-service', { NATS_URL: natsUrl, UPSTREAM_URL: systems.endpoints.upstream });
  const port = await freePort();
  const gateway = await floor('floor-gateway', { NATS_URL: natsUrl, PORT: String(port) });

  const keys = [account.apiKey];
  const one = { stream: false, accounts: 1 };
  const nats = systems.cpu.nats ? [{ pid: systems.cpu.nats, label: 'nats-server' }] : [];
  const redis = systems.cpu.redis ? [{ pid: systems.cpu.redis, label: 'redis' }] : [];
  const platformProcs = () => [
    ...processTree(readAllStats(), systems.cpu.platformRoot).map((s) => ({ pid: s.pid, label: processLabel(s.pid, s.comm) })),
    ...nats,
    ...redis,
  ];
  const floorTarget = { ...chatTarget('direct', one, systems.endpoints, keys), url: `http://127.0.0.1:${port}/v1/chat/completions` };
  const contenders: [string, Target, () => Proc[]][] = [
    ['upstream alone', chatTarget('direct', one, systems.endpoints, keys), () => [{ pid: systems.cpu.upstream!, label: 'upstream' }]],
    ['Portkey', chatTarget('portkey', one, systems.endpoints, keys), () => [{ pid: systems.cpu.portkey, label: 'portkey' }]],
    [
      'floor: HTTP -> NATS -> service -> upstream',
      floorTarget,
      () => [{ pid: gateway.pid!, label: 'gateway' }, { pid: service.pid!, label: 'service' }, ...nats],
    ],
    ['platform (with nats-server and Redis)', chatTarget('platform', one, systems.endpoints, keys), platformProcs],
  ];
  const results = new Map<string, Turn[]>(contenders.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const [name, target, pids] of order) {
      say(`round ${round + 1}: ${name}`);
      results.get(name)!.push(await turn(target, pids, round === 0 ? PRIME : WARMUP));
    }
  }

  const base = median(results.get('upstream alone')!.map((t) => t.p50));
  const portkeyCpu = median(results.get('Portkey')!.map((t) => t.cpuMs));
  const lines = [
    `bench:floor: ${REQUESTS} sequential non-streaming requests per turn on one kept-alive connection, ${ROUNDS} rounds (medians of the rounds), after ${PRIME} requests to each system before its first`,
    '',
    '| system | p50 ms | added p50 ms | CPU ms/req | CPU / Portkey | wake-ups/req |',
    '|---|---:|---:|---:|---:|---:|',
    ...contenders.map(([name]) => {
      const turns = results.get(name)!;
      const p50 = median(turns.map((t) => t.p50));
      const cpu = median(turns.map((t) => t.cpuMs));
      const added = name === 'upstream alone' ? '' : `+${(p50 - base).toFixed(3)}`;
      return `| ${name} | ${p50.toFixed(3)} | ${added} | ${cpu.toFixed(3)} | ${(cpu / portkeyCpu).toFixed(2)}x | ${median(turns.map((t) => t.wakeups)).toFixed(2)} |`;
    }),
    '',
    'CPU ms/req by process (medians of the rounds):',
    ...contenders.slice(2).map(([name]) => {
      const turns = results.get(name)!;
      const labels = [...turns[0].split.keys()];
      const parts = labels
        .map((l) => [l, median(turns.map((t) => t.split.get(l) ?? 0))] as const)
        .filter(([, v]) => v >= 0.005)
        .sort((a, b) => b[1] - a[1])
        .map(([l, v]) => `${l} ${v.toFixed(3)}`);
      return `- ${name}: ${parts.join(', ')}`;
    }),
    '',
    "CPU: utime + stime from /proc of the system's own processes (the upstream's only in its own row); Postgres not counted.",
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

runMain(main, cleanups);
