import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBench } from '@svc/testing';
import { benchAccounts } from './accounts';
import { parseCompareArgs, USAGE } from './args';
import { chatTarget, Endpoints, probe } from './chat-request';
import { platformPids } from './cpu-sampler';
import { measureStreaming, repoRoot, runLoad, StreamResult } from './gateway-overhead';
import { measure } from './measure';
import { CompareResult, Measurement } from './measurement';
import { rssMb } from './proc-memory';
import { portkeyVersions } from './portkey';
import { failures, loadGeneratorCpu, renderCpuTable, renderLoadTable, renderStreamTable } from './report';
import { runOrder, scenarios, System } from './scenarios';
import { startSystems } from './systems';
import { checkTargets, renderChecks } from './targets';

const say = (msg: string): void => {
  process.stderr.write(`[bench:compare] ${msg}\n`);
};
const cleanups: (() => Promise<void>)[] = [];
const SYSTEMS: System[] = ['direct', 'platform', 'portkey'];
/** Connections of the priming load: enough to reach the compiling quickly, few enough for any machine. */
const PRIME_CONNECTIONS = 4;

const COUNTED = `CPU ms/req is utime+stime per completed request during the measured run (from /proc): direct = the fake upstream;
platform = node tools/start/start.js and every process below it (gateway, chat, billing, keys; others = media, audio,
wallet, start and engine workers) plus the platform's private nats-server; portkey = Portkey's node process. Shown on
their own, not in the platform's total: pg bench DBs = Postgres backends connected to svc_bench_compare_*; pg shared =
the postmaster, WAL writer, checkpointer, background writer and autovacuum (server-wide: other users of this Postgres
count there too); redis = the platform's private redis-server. RSS MB: the gateway process / Portkey's process after the run.`;

async function main(): Promise<void> {
  const root = repoRoot();
  const options = parseCompareArgs(process.argv.slice(2), root);
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const loadBefore = os.loadavg();
  const logDir = path.join(root, 'tmp/bench-compare');
  mkdirSync(logDir, { recursive: true });
  const systems = await startSystems({ root, logDir, tokens: options.tokens, startTimeoutSeconds: options.startTimeoutSeconds, cleanups, say });
  const { endpoints, cpu } = systems;

  const works = (apiKey: string): Promise<boolean> =>
    probe(chatTarget('platform', { stream: false, accounts: 1 }, endpoints, [apiKey]), 'platform').then(
      () => true,
      () => false,
    );
  const accounts = await benchAccounts({
    root,
    env: systems.cliEnv,
    count: options.accounts,
    file: path.join(logDir, 'accounts.json'),
    reseed: options.reseed,
    works,
    say,
  });
  const keys = accounts.map((a) => a.apiKey);
  for (const system of SYSTEMS) {
    for (const stream of [false, true])
      await probe(chatTarget(system, { stream, accounts: 1 }, endpoints, keys), `${system} (${stream ? 'streaming' : 'non-streaming'})`);
  }

  // V8 compiles a function's optimized code only after it has run a while: the platform's many
  // processes took about 4,000 requests to settle, Portkey about 3,000 (bench/RESULTS.md). Each
  // system gets the same load once, so every scenario measures compiled code, not the compiling.
  if (options.primeSeconds > 0) {
    for (const system of SYSTEMS) {
      say(`priming ${system}: ${options.primeSeconds} s at ${PRIME_CONNECTIONS} connections, half of it streamed`);
      for (const stream of [false, true])
        await runLoad(chatTarget(system, { stream, accounts: 1 }, endpoints, keys), PRIME_CONNECTIONS, Math.max(1, Math.ceil(options.primeSeconds / 2)));
    }
  }

  const list = scenarios(options.connections, options.accounts);
  const measurements: Measurement[] = [];
  const rssPids = (system: System) => (): number[] =>
    system === 'platform' ? platformPids(cpu.platformRoot, 'gateway') : system === 'portkey' ? [cpu.portkey] : [];
  for (const [i, scenario] of list.entries()) {
    for (const system of runOrder(scenario, i)) {
      say(`${scenario.name}: ${system}, ${options.durationSeconds} s after ${options.warmupSeconds} s warm-up`);
      const target = chatTarget(system, scenario, endpoints, keys);
      measurements.push(await measure(system, scenario, target, { ...options, cpu, rssPids: rssPids(system) }));
    }
  }
  const streaming = await measureFirstBytes(endpoints, keys, options.streamRequests);
  const nats = cpu.nats === undefined ? [] : [cpu.nats];
  const result: CompareResult = { scenarios: list, measurements, streaming, platformRssMb: rssMb([...platformPids(cpu.platformRoot), ...nats]) };

  const checks = checkTargets(result, options.connections);
  const versions = portkeyVersions(root);
  const loadAvg = (l: number[]): string => l.map((v) => v.toFixed(2)).join(' ');
  const problems = failures(result);
  const lines = [
    '',
    `bench:compare: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${versions}`,
    `${options.durationSeconds} s per run after ${options.warmupSeconds} s warm-up (each system primed with ${options.primeSeconds} s of load first), upstream answers ${options.tokens} tokens at once, load average ${loadAvg(loadBefore)} before, ${loadAvg(os.loadavg())} after`,
    '',
    renderLoadTable(result),
    '',
    'Platform CPU ms/request by process (and Postgres, Redis, Portkey for scale):',
    renderCpuTable(result),
    '',
    `Streaming, ${options.streamRequests} sequential requests on one connection (ms):`,
    renderStreamTable(result),
    '',
    renderChecks(checks),
    '',
    ...(problems.length > 0 ? ['Not all answers were 2xx (RPS and latency count 2xx only):', ...problems, ''] : ['Every answer was 2xx.', '']),
    `Platform RSS, all processes with nats-server: ${Math.round(result.platformRssMb ?? 0)} MB. Load generator CPU ms/req: platform runs ${loadGeneratorCpu(result, 'platform').toFixed(3)}, Portkey runs ${loadGeneratorCpu(result, 'portkey').toFixed(3)}.`,
    COUNTED,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    loadAverage: { before: loadBefore, after: os.loadavg() },
  };
  writeFileSync(
    options.out,
    `${JSON.stringify({ date: new Date().toISOString(), machine, portkey: versions, options, ...result, targets: checks }, null, 2)}\n`,
  );
  say(`results written to ${path.relative(root, options.out)}`);
}

/** Time to first byte, one system after the other, the hot account's key. */
async function measureFirstBytes(endpoints: Endpoints, keys: string[], requests: number): Promise<Partial<Record<System, StreamResult>>> {
  const streaming: Partial<Record<System, StreamResult>> = {};
  for (const system of SYSTEMS) {
    say(`streaming first byte: ${system}, ${requests} sequential requests`);
    streaming[system] = await measureStreaming(chatTarget(system, { stream: true, accounts: 1 }, endpoints, keys), requests, Math.min(20, requests));
  }
  return streaming;
}

runBench('bench:compare', main, cleanups);
