import { parseArgs } from 'node:util';

export const USAGE = `Usage: npm run bench:billing -- [options]
  --latency-requests <n>  sequential reservations timed one by one (default 2000, after 300 warm-up)
  --duration <s>          seconds of each throughput run (default 5)
  --concurrency <n>       reserve+settle loops running at once (default 32)
  --accounts <n>          accounts the throughput run spreads over (default 64; a second run uses 1)
  --replicas <n>          billing service processes (default 1)
  --database <url>        Postgres database to (re)create for the run (default .../svc_bench_billing)
  --out <file>            JSON results (default bench/billing/last-run.json)`;

export interface BenchOptions {
  latencyRequests: number;
  durationSeconds: number;
  concurrency: number;
  accounts: number;
  replicas: number;
  database: string;
  out: string;
  help: boolean;
}

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive whole number`);
  return n;
}

export function parseBenchArgs(argv: string[], defaults: { database: string; out: string }): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'latency-requests': { type: 'string' },
      duration: { type: 'string' },
      concurrency: { type: 'string' },
      accounts: { type: 'string' },
      replicas: { type: 'string' },
      database: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  return {
    latencyRequests: positive('latency-requests', values['latency-requests'], 2000),
    durationSeconds: positive('duration', values.duration, 5),
    concurrency: positive('concurrency', values.concurrency, 32),
    accounts: positive('accounts', values.accounts, 64),
    replicas: positive('replicas', values.replicas, 1),
    database: values.database ?? defaults.database,
    out: values.out ?? defaults.out,
    help: values.help ?? false,
  };
}
