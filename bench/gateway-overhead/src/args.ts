import path from 'node:path';
import { parseArgs } from 'node:util';

/** The bootstrap ADMIN key the benchmark gives the platform it starts (a bench-only secret). */
export const BENCH_ADMIN_KEY = 'svc_bench_gateway_overhead_local_only_0001';

export const USAGE = `Usage: npm run bench:gateway -- [options]
  --duration <s>          seconds per measured load run (default 10)
  --warmup <s>            seconds of warm-up before each load run (default 3)
  --connections <n>       connections of the loaded run (default 32; the unloaded run uses 1)
  --stream-requests <n>   sequential streaming requests for time to first byte (default 200)
  --tokens <n>            completion tokens per fake-upstream answer (default 8)
  --direct-only           measure the fake upstream alone; do not touch the platform
  --no-platform-start     measure an already-running platform at --url (see README.md)
  --url <base>            that platform's base URL, e.g. http://127.0.0.1:3000
  --platform-pid <pid>    with --no-platform-start: the start process, for CPU per request
  --upstream-port <n>     port of the fake upstream (default: free port; 18080 with --no-platform-start)
  --upstream-url <url>    use an upstream that is already running (OpenAI base URL, with /v1)
  --api-key <key>         platform key (default $BENCH_API_KEY, else the bench ADMIN key)
  --model <id>            catalog model id (default bench-upstream)
  --start-timeout <s>     seconds to wait for the platform's /healthz (default 600)
  --out <file>            JSON results (default bench/gateway-overhead/last-run.json)
  --no-metrics            start the platform with METRICS_ENABLED=false (the baseline of the metrics' cost)
  --profile               CPU profiles of the platform's processes (node --cpu-prof), summarized for
                          the measured runs only (files in tmp/bench-gateway-overhead/profiles)`;

export interface BenchOptions {
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  streamRequests: number;
  tokens: number;
  directOnly: boolean;
  startPlatform: boolean;
  url?: string;
  platformPid?: number;
  upstreamPort: number;
  upstreamUrl?: string;
  apiKey: string;
  model: string;
  startTimeoutSeconds: number;
  out: string;
  /** Profile the platform it starts and summarize the measured runs. */
  profile: boolean;
  /** The platform it starts counts no metrics (METRICS_ENABLED=false). */
  metrics: boolean;
  help: boolean;
}

export function parseBenchArgs(argv: string[], env: NodeJS.ProcessEnv, root: string): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      'stream-requests': { type: 'string' },
      tokens: { type: 'string' },
      'direct-only': { type: 'boolean' },
      'no-platform-start': { type: 'boolean' },
      url: { type: 'string' },
      'platform-pid': { type: 'string' },
      'upstream-port': { type: 'string' },
      'upstream-url': { type: 'string' },
      'api-key': { type: 'string' },
      model: { type: 'string' },
      'start-timeout': { type: 'string' },
      out: { type: 'string' },
      profile: { type: 'boolean' },
      'no-metrics': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  const startPlatform = !values['no-platform-start'];
  if (!startPlatform && !values.url) throw new Error('--no-platform-start needs --url <base of the running platform>');
  if (startPlatform && values.url) throw new Error('--url is for --no-platform-start; without it the benchmark starts its own platform');
  if (!startPlatform && values.profile)
    throw new Error('--profile needs the platform the benchmark starts (start yours with SVC_NODE_ARGS=--cpu-prof instead)');
  return {
    durationSeconds: num('duration', values.duration, 10, 1),
    warmupSeconds: num('warmup', values.warmup, 3, 0),
    connections: num('connections', values.connections, 32, 1),
    streamRequests: num('stream-requests', values['stream-requests'], 200, 1),
    tokens: num('tokens', values.tokens, 8, 1),
    directOnly: values['direct-only'] ?? false,
    startPlatform,
    url: values.url?.replace(/\/+$/, ''),
    platformPid: values['platform-pid'] === undefined ? undefined : num('platform-pid', values['platform-pid'], 0, 1),
    upstreamPort: num('upstream-port', values['upstream-port'], startPlatform ? 0 : 18080, 0),
    upstreamUrl: values['upstream-url']?.replace(/\/+$/, ''),
    apiKey: values['api-key'] ?? env.BENCH_API_KEY ?? BENCH_ADMIN_KEY,
    model: values.model ?? 'bench-upstream',
    startTimeoutSeconds: num('start-timeout', values['start-timeout'], 600, 1),
    out: path.resolve(root, values.out ?? 'bench/gateway-overhead/last-run.json'),
    profile: values.profile ?? false,
    metrics: !values['no-metrics'],
    help: values.help ?? false,
  };
}

function num(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}, got ${value}`);
  return n;
}
