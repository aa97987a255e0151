import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBench } from '@svc/testing';
import { BenchOptions, parseBenchArgs, USAGE } from './args';
import { freePort, Helper, repoRoot, startFakeUpstream, startPrivateNats } from './helper-processes';
import { runLoad, Target } from './load';
import { startPlatform } from './platform';
import { cpuDelta, processLabel, snapshot } from './proc-cpu';
import { nowUs, ProfileSummary, profilesByPid, readProfile, renderSummary, summarizeProfile, WindowUs } from './profile-summary';
import { checkTargets, failures, REFERENCE, renderChecks, renderTable, SideResult } from './report';
import { measureStreaming } from './stream-ttfb';
import { errorMessage } from '@svc/errors';

const say = (msg: string): void => {
  process.stderr.write(`[bench] ${msg}\n`);
};
const cleanups: (() => Promise<void>)[] = [];

const MESSAGES = [{ role: 'user', content: 'Reply with a few words: what is a benchmark?' }];

function chatTarget(url: string, model: string, stream: boolean, apiKey?: string): Target {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return { url, headers, body: JSON.stringify({ model, messages: MESSAGES, stream }) };
}

/** One request, so a broken setup fails with its answer instead of a table of errors. */
async function probe(target: Target, what: string): Promise<void> {
  const res = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('tok0')) throw new Error(`${what} answered ${res.status}: ${text.slice(0, 500)}`);
}

interface CpuSources {
  /** Process trees whose CPU is the side's own (the fake upstream; the platform's start process). */
  roots: number[];
  nats?: number;
}

async function measureSide(name: string, target: Target, stream: Target, options: BenchOptions, cpu: CpuSources): Promise<SideResult> {
  const { durationSeconds: duration, warmupSeconds: warmup, connections } = options;
  if (warmup > 0) await runLoad(target, 1, warmup);
  say(`${name}: 1 connection for ${duration} s`);
  const unloadedFrom = nowUs();
  const unloaded = await runLoad(target, 1, duration);
  const unloadedWindow: WindowUs = [unloadedFrom, nowUs()];

  if (warmup > 0) await runLoad(target, connections, warmup);
  say(`${name}: ${connections} connections for ${duration} s`);
  const extra = cpu.nats === undefined ? [] : [cpu.nats];
  const before = snapshot(cpu.roots, extra);
  const selfBefore = process.cpuUsage();
  const loadedFrom = nowUs();
  const loaded = await runLoad(target, connections, duration);
  const loadedWindow: WindowUs = [loadedFrom, nowUs()];
  const self = process.cpuUsage(selfBefore);
  const after = snapshot(cpu.roots, extra);

  const requests = loaded.ok + loaded.non2xx;
  const delta = cpuDelta(before, after);
  const perRequest = (seconds: number): number => (seconds * 1000) / requests;
  let ownSeconds = 0;
  const breakdown: Record<string, number> = {};
  const labels: Record<number, string> = {};
  for (const [pid, seconds] of delta.bySeconds) {
    if (pid === cpu.nats) continue;
    ownSeconds += seconds;
    const label = processLabel(pid, after.comms.get(pid) ?? String(pid));
    labels[pid] = label;
    breakdown[label] = (breakdown[label] ?? 0) + perRequest(seconds);
  }
  if (delta.exited > 0) say(`${name}: ${delta.exited} process(es) exited during the run; their CPU is not counted`);

  say(`${name}: ${options.streamRequests} sequential streaming requests`);
  const streamed = await measureStreaming(stream, options.streamRequests, Math.min(20, options.streamRequests));
  return {
    unloaded,
    loaded,
    stream: streamed,
    cpuMsPerRequest: cpu.roots.length > 0 ? perRequest(ownSeconds) : undefined,
    cpuCoresBusy: cpu.roots.length > 0 ? ownSeconds / loaded.durationSeconds : undefined,
    cpuBreakdown: cpu.roots.length > 0 ? breakdown : undefined,
    natsCpuMsPerRequest: cpu.nats === undefined ? undefined : perRequest(delta.bySeconds.get(cpu.nats) ?? 0),
    loadGeneratorCpuMsPerRequest: (self.user + self.system) / 1000 / requests,
    windowsUs: { unloaded: unloadedWindow, loaded: loadedWindow },
    labels,
  };
}

async function main(): Promise<void> {
  const root = repoRoot();
  const options = parseBenchArgs(process.argv.slice(2), process.env, root);
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }

  let upstream: Helper;
  if (options.upstreamUrl) {
    upstream = { url: options.upstreamUrl, pid: undefined, stop: async () => undefined };
  } else {
    const started = await startFakeUpstream(root, options.upstreamPort, options.tokens);
    cleanups.push(started.stop);
    upstream = { ...started, url: `${started.url}/v1` };
    say(`fake upstream at ${upstream.url} (${options.tokens} tokens, no delay)`);
  }

  const direct = chatTarget(`${upstream.url}/chat/completions`, 'fake-model', false);
  await probe(direct, 'the upstream');
  const directResult = await measureSide('direct', direct, chatTarget(direct.url, 'fake-model', true), options, {
    roots: upstream.pid === undefined ? [] : [upstream.pid],
  });

  let platformResult: SideResult | undefined;
  let platformError: string | undefined;
  if (!options.directOnly) {
    try {
      platformResult = await measurePlatform(root, upstream.url, options);
    } catch (err) {
      platformError = errorMessage(err);
    }
  }

  const checks = platformResult ? checkTargets(directResult, platformResult) : [];
  // Other work on the machine skews every number; the load average at the end says how much there was.
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const lines = [
    '',
    `Gateway overhead: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${options.durationSeconds} s per run, upstream answers ${options.tokens} tokens with no delay, load average ${load}`,
    '',
    renderTable(directResult, platformResult),
    '',
    ...(checks.length > 0 ? [renderChecks(checks), ''] : []),
    ...[...failures(directResult).map((f) => `direct: ${f}`), ...(platformResult ? failures(platformResult).map((f) => `platform: ${f}`) : [])],
    ...(platformError ? [`platform not measured: ${platformError}`, ''] : []),
    `For reference, ${REFERENCE}.`,
    ...renderProfiles(platformResult),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  mkdirSync(path.dirname(options.out), { recursive: true });
  const json = {
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.type()} ${os.release()}`,
      loadAverage: os.loadavg(),
    },
    options: { ...options, apiKey: undefined },
    direct: directResult,
    platform: platformResult ?? null,
    platformError: platformError ?? null,
    targets: checks,
    reference: REFERENCE,
  };
  writeFileSync(options.out, `${JSON.stringify(json, null, 2)}\n`);
  say(`results written to ${path.relative(root, options.out)}`);
  if (platformError && !options.directOnly) process.exitCode = 1;
}

async function measurePlatform(root: string, upstreamBaseUrl: string, options: BenchOptions): Promise<SideResult> {
  let baseUrl: string;
  const cpu: CpuSources = { roots: [] };
  if (options.startPlatform) {
    const nats = await startPrivateNats();
    cleanups.push(nats.stop);
    const port = await freePort();
    const logDir = path.join(root, 'tmp/bench-gateway-overhead');
    mkdirSync(logDir, { recursive: true });
    const profileDir = path.join(logDir, 'profiles');
    rmSync(profileDir, { recursive: true, force: true });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      NATS_URL: nats.url,
      SVC_CATALOG_PATH: path.join(root, 'bench/gateway-overhead/catalog.yaml'),
      BENCH_UPSTREAM_URL: upstreamBaseUrl,
      SVC_ADMIN_KEY: options.apiKey,
      KEYS_DATABASE_URL: process.env.BENCH_KEYS_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_keys',
      BILLING_DATABASE_URL: process.env.BENCH_BILLING_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_billing',
      // Per-minute limits would refuse a load test; their cost is measured by bench:ratelimit.
      RATE_LIMITS_ENABLED: 'false',
      // The baseline of the metrics' hot-path cost (bench/RESULTS.md): same platform, nothing counted.
      ...(options.metrics ? {} : { METRICS_ENABLED: 'false' }),
      SVC_BOOTSTRAP_CREDITS_USD: '1000000',
      LOG_LEVEL: 'warn',
      // `npm run bench:gateway` has just built; the platform must run what this benchmark was built with.
      SVC_SKIP_BUILD: '1',
      START_TIMEOUT_MS: String(options.startTimeoutSeconds * 1000),
      // tools/start passes SVC_NODE_ARGS to every service; profiles are written when they exit.
      ...(options.profile ? { SVC_NODE_ARGS: `${process.env.SVC_NODE_ARGS ?? ''} --cpu-prof --cpu-prof-dir=${profileDir}`.trim() } : {}),
    };
    say(`starting the platform on port ${port}${options.metrics ? '' : ', metrics off'} (log: ${path.relative(root, logDir)}/platform.log)`);
    const platform = await startPlatform(root, env, port, path.join(logDir, 'platform.log'), options.startTimeoutSeconds * 1000);
    cleanups.push(platform.stop);
    baseUrl = platform.baseUrl;
    cpu.roots.push(platform.pid);
    cpu.nats = nats.pid;
    say(`platform healthy at ${baseUrl}`);
    const target = chatTarget(`${baseUrl}/api/v1/chat/completions`, options.model, false, options.apiKey);
    await probe(target, 'the platform');
    const result = await measureSide('platform', target, chatTarget(target.url, options.model, true, options.apiKey), options, cpu);
    if (!options.profile) return result;
    await platform.stop();
    return { ...result, profiles: summarizeProfiles(profileDir, result) };
  }
  baseUrl = options.url as string;
  if (options.platformPid !== undefined) cpu.roots.push(options.platformPid);
  const target = chatTarget(`${baseUrl}/api/v1/chat/completions`, options.model, false, options.apiKey);
  await probe(target, 'the platform');
  return measureSide('platform', target, chatTarget(target.url, options.model, true, options.apiKey), options, cpu);
}

/** The platform's profiles (written as its processes exit) over the two measured load runs. */
function summarizeProfiles(dir: string, result: SideResult): Record<string, { unloaded: ProfileSummary; loaded: ProfileSummary }> {
  const summaries: Record<string, { unloaded: ProfileSummary; loaded: ProfileSummary }> = {};
  if (!result.windowsUs) return summaries;
  for (const [pid, file] of profilesByPid(dir)) {
    const label = result.labels?.[pid] ?? String(pid);
    const profile = readProfile(file);
    summaries[label] = {
      unloaded: summarizeProfile(profile, result.windowsUs.unloaded, result.unloaded.ok + result.unloaded.non2xx),
      loaded: summarizeProfile(profile, result.windowsUs.loaded, result.loaded.ok + result.loaded.non2xx),
    };
  }
  return summaries;
}

function renderProfiles(result: SideResult | undefined): string[] {
  if (!result?.profiles) return [];
  const lines = ['', 'CPU profiles of the measured runs, self time by function (start-up and idle time left out):'];
  for (const [label, { unloaded, loaded }] of Object.entries(result.profiles)) {
    if (loaded.busyMsPerRequest < 0.01 && unloaded.busyMsPerRequest < 0.01) continue;
    lines.push('', renderSummary(`${label}, 1 connection`, unloaded), '', renderSummary(`${label}, ${result.loaded.connections} connections`, loaded));
  }
  return lines;
}

runBench('bench', main, cleanups);
