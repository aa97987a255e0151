import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';

export const USAGE = `Usage: npm run bench:compare -- [options]
  --duration <s>          seconds per measured run (default 10; 2 with --quick)
  --warmup <s>            seconds of warm-up before each measured run (default 2; 1 with --quick)
  --prime <s>             seconds of load each system gets once, before the first scenario, half of it
                          streamed, so that all are measured with their code compiled (default 16; 2 with --quick)
  --quick                 a short smoke run (the defaults in parentheses above and below)
  --connections <n>       connections of the loaded scenarios (default 32; the unloaded ones use 1)
  --accounts <n>          accounts, one key each, of the many-accounts scenarios (default 64)
  --stream-requests <n>   sequential streaming requests per system for time to first byte (default 200; 50 with --quick)
  --tokens <n>            completion tokens per fake-upstream answer (default 8)
  --reseed                create fresh bench accounts even when the saved ones still work
  --start-timeout <s>     seconds to wait for the platform's /healthz (default 600)
  --out <file>            JSON results (default bench/compare/last-run.json)`;

export interface CompareOptions {
  durationSeconds: number;
  warmupSeconds: number;
  primeSeconds: number;
  connections: number;
  accounts: number;
  streamRequests: number;
  tokens: number;
  quick: boolean;
  reseed: boolean;
  startTimeoutSeconds: number;
  out: string;
  help: boolean;
}

const optionalInt = (flag: string, min: number) =>
  z
    .string()
    .optional()
    .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= min), { message: `--${flag} must be an integer >= ${min}` })
    .transform((v) => (v === undefined ? undefined : Number(v)));

const flagsSchema = z.object({
  duration: optionalInt('duration', 1),
  warmup: optionalInt('warmup', 0),
  prime: optionalInt('prime', 0),
  connections: optionalInt('connections', 2),
  accounts: optionalInt('accounts', 2),
  'stream-requests': optionalInt('stream-requests', 1),
  tokens: optionalInt('tokens', 1),
  'start-timeout': optionalInt('start-timeout', 1),
  out: z.string().min(1).optional(),
  quick: z.boolean().default(false),
  reseed: z.boolean().default(false),
  help: z.boolean().default(false),
});

export function parseCompareArgs(argv: string[], root: string): CompareOptions {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(
      Object.keys(flagsSchema.shape).map((name) => [name, { type: ['quick', 'reseed', 'help'].includes(name) ? 'boolean' : 'string' }] as const),
    ),
  });
  const parsed = flagsSchema.safeParse(values);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join('; '));
  const f = parsed.data;
  return {
    durationSeconds: f.duration ?? (f.quick ? 2 : 10),
    warmupSeconds: f.warmup ?? (f.quick ? 1 : 2),
    primeSeconds: f.prime ?? (f.quick ? 2 : 16),
    connections: f.connections ?? 32,
    accounts: f.accounts ?? 64,
    streamRequests: f['stream-requests'] ?? (f.quick ? 50 : 200),
    tokens: f.tokens ?? 8,
    quick: f.quick,
    reseed: f.reseed,
    startTimeoutSeconds: f['start-timeout'] ?? 600,
    out: path.resolve(root, f.out ?? 'bench/compare/last-run.json'),
    help: f.help,
  };
}
