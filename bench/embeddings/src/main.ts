import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadCatalog } from '@svc/catalog';
import { REPO_ROOT } from '@svc/config';
import { serviceMigrationsDir } from '@svc/database';
import { createTestDatabase, freePort, runBench, startPrivateNats } from '@svc/testing';
import { shortTexts } from './texts';

/**
 * Embeddings per second for a batch of 100 short texts: the zoo model's engine called directly,
 * then the same batch through POST /api/v1/embeddings (gateway, NATS, chat service, billing on
 * the path, rate limits off) at 1 and 4 requests in flight. The services run from the TypeScript
 * sources (the integration tests' register-ts hook), each as its own process, on a private
 * nats-server and fresh databases. Loaded by path (like bench/models), outside module boundaries.
 *   node -r ./apps/gateway/test/integration/support/register-ts.js bench/embeddings/src/main.ts [seconds]
 */
interface ServiceProcess {
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}
interface WordVectorsEngineLike {
  ready(): Promise<void>;
  embed(inputs: string[]): { embeddings: Float32Array[] };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startService } = require(path.join(REPO_ROOT, 'apps/gateway/test/integration/support/processes.ts')) as {
  startService: (name: string, entry: string, env: Record<string, string>) => ServiceProcess;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { WordVectorsEngine } = require(path.join(REPO_ROOT, 'apps/chat/src/engines/embeddings/word-vectors.engine.ts')) as {
  WordVectorsEngine: new (o: { modelPath: string }) => WordVectorsEngineLike;
};

const SECONDS = Number(process.argv[2] ?? 8);
const BATCH = shortTexts(100);
const say = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const cleanups: Array<() => Promise<void>> = [];

interface Row {
  path: string;
  inFlight: number;
  batches: number;
  embeddingsPerSecond: number;
  batchMsP50: number;
  batchMsP95: number;
}

async function measure(label: string, inFlight: number, once: () => Promise<void>): Promise<Row> {
  for (let i = 0; i < 5; i++) await once();
  const times: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await once();
        times.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const pct = (p: number) => +times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(2);
  const row = {
    path: label,
    inFlight,
    batches: times.length,
    embeddingsPerSecond: Math.round((times.length * BATCH.length) / elapsed),
    batchMsP50: pct(0.5),
    batchMsP95: pct(0.95),
  };
  say(JSON.stringify(row));
  return row;
}

async function main(): Promise<void> {
  const model = loadCatalog().get('svc-zoo-embed');
  if (model?.engine.kind !== 'embedded-word-vectors') throw new Error('svc-zoo-embed must be an embedded-word-vectors model');
  const engine = new WordVectorsEngine({ modelPath: path.join(REPO_ROOT, 'models', model.engine.file) });
  await engine.ready();
  const rows: Row[] = [await measure('engine (in process)', 1, async () => void engine.embed(BATCH))];

  say('starting nats, keys, billing, chat and the gateway from sources');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-emb-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const nats = await startPrivateNats();
  cleanups.push(() => nats.stop());
  const keysDb = await createTestDatabase('benchembk', { migrationsDir: serviceMigrationsDir('keys') });
  cleanups.push(() => keysDb.drop());
  const billingDb = await createTestDatabase('benchembb', { migrationsDir: serviceMigrationsDir('billing') });
  cleanups.push(() => billingDb.drop());
  const chatDb = await createTestDatabase('benchembc', { migrationsDir: serviceMigrationsDir('chat') });
  cleanups.push(() => chatDb.drop());
  const adminKey = `svc_bench_${randomBytes(18).toString('base64url')}`;
  const common = { NATS_URL: nats.url, LOG_LEVEL: 'warn' };
  const port = await freePort();
  const procs = {
    keys: startService('keys', 'apps/keys/src/main.ts', { ...common, KEYS_DATABASE_URL: keysDb.url, KEYS_MIGRATE_ON_BOOT: 'false', SVC_ADMIN_KEY: adminKey }),
    billing: startService('billing', 'apps/billing/src/main.ts', { ...common, BILLING_DATABASE_URL: billingDb.url, BILLING_MIGRATE_ON_BOOT: 'false' }),
    chat: startService('chat', 'apps/chat/src/main.ts', { ...common, CHAT_DATABASE_URL: chatDb.url, CHAT_MIGRATE_ON_BOOT: 'false' }),
    gateway: startService('gateway', 'apps/gateway/src/main.ts', {
      ...common,
      LOG_LEVEL: 'info',
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMITS_ENABLED: 'false',
      REDIS_KEY_PREFIX: `svc_bench_emb_${randomBytes(3).toString('hex')}:`,
    }),
  };
  for (const p of Object.values(procs)) cleanups.push(() => p.stop());
  await procs.gateway.waitFor('gateway listening', 120_000);
  const url = `http://127.0.0.1:${port}/api/v1/embeddings`;
  const body = JSON.stringify({ model: 'svc-zoo-embed', input: BATCH, encoding_format: 'float' });
  const headers = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' };
  const once = async () => {
    const res = await fetch(url, { method: 'POST', headers, body });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST /embeddings answered ${res.status}: ${text.slice(0, 300)}`);
  };
  // Services come up in any order: wait until a whole request succeeds.
  for (let attempt = 0; ; attempt++) {
    try {
      await once();
      break;
    } catch (err) {
      if (attempt > 120) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  // fetch asks for gzip/br like the openai client does; the gateway compresses JSON over 1 KB.
  const b64 = JSON.stringify({ model: 'svc-zoo-embed', input: BATCH, encoding_format: 'base64' });
  rows.push(await measure('API, float', 1, once));
  rows.push(
    await measure('API, float, no compression', 1, async () => {
      const res = await fetch(url, { method: 'POST', headers: { ...headers, 'accept-encoding': 'identity' }, body });
      if (res.status !== 200) throw new Error(`POST /embeddings answered ${res.status}`);
      await res.arrayBuffer();
    }),
  );
  rows.push(await measure('API, float', 4, once));
  rows.push(
    await measure('API, base64', 4, async () => {
      const res = await fetch(url, { method: 'POST', headers, body: b64 });
      if (res.status !== 200) throw new Error(`POST /embeddings answered ${res.status}`);
      await res.arrayBuffer();
    }),
  );
  const result = {
    date: new Date().toISOString(),
    host: { cpus: os.cpus().length, load: os.loadavg().map((v) => +v.toFixed(2)) },
    batch: BATCH.length,
    seconds: SECONDS,
    rows,
  };
  writeFileSync(path.join(REPO_ROOT, 'bench/embeddings/last-run.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write('| path | in flight | batches | embeddings/s | batch p50 ms | batch p95 ms |\n|---|---|---|---|---|---|\n');
  for (const r of rows) process.stdout.write(`| ${r.path} | ${r.inFlight} | ${r.batches} | ${r.embeddingsPerSecond} | ${r.batchMsP50} | ${r.batchMsP95} |\n`);
}

runBench('bench:embeddings', main, cleanups);
