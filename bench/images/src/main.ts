import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from 'nats';
import { BlobStore } from '@svc/blob-store';
import { ImageGenerateParams, MEDIA } from '@svc/contracts';
import { serviceMigrationsDir } from '@svc/database';
import { RpcClient } from '@svc/messaging';
import { createTestDatabase, freePort, runBench, startFakeBilling, startPrivateNats, startPrivateRedis } from '@svc/testing';
import { LOG_DIR, startFromSources } from './stack';
import { fmt, percentile, perMinute } from './stats';

const USAGE = `Usage: node -r ./apps/gateway/test/integration/support/register-ts.js bench/images/src/main.ts [--images <n>] [--sizes 256,512,1024] [--overhead <n>]
  --images    images per size and path (default 4)
  --sizes     output sizes (square) to measure (default 256,512,1024)
  --overhead  small binary requests per path for the gateway overhead (default 30)`;
const say = (msg: string) => process.stderr.write(`[bench:images] ${msg}\n`);
const cleanups: Array<() => Promise<void>> = [];

interface Row {
  size: number;
  engineMs: number;
  natsPerMin: number;
  apiPerMin: number;
  apiBytes: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { images: { type: 'string' }, sizes: { type: 'string' }, overhead: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const images = Number(values.images ?? 4);
  const sizes = (values.sizes ?? '256,512,1024').split(',').map(Number);
  const overheadN = Number(values.overhead ?? 30);

  say('starting NATS, Redis, keys, media and gateway from sources (billing is a fake that grants everything)');
  const nats = await startPrivateNats();
  cleanups.push(() => nats.stop());
  const redis = await startPrivateRedis();
  cleanups.push(() => redis.stop());
  const keysDb = await createTestDatabase('benchimg', { migrationsDir: serviceMigrationsDir('keys') });
  cleanups.push(() => keysDb.drop());
  const nc = await connect({ servers: nats.url });
  cleanups.push(() => nc.close());
  const stopBilling = startFakeBilling(nc);
  cleanups.push(async () => stopBilling());
  const adminKey = `svc_bench_img_${randomBytes(18).toString('base64url')}`;
  const common = { NATS_URL: nats.url, REDIS_URL: redis.url, SVC_ADMIN_KEY: adminKey, LOG_LEVEL: 'info' };
  const port = await freePort();
  const procs = await Promise.all([
    startFromSources('keys', 'apps/keys/src/main.ts', { ...common, KEYS_DATABASE_URL: keysDb.url, KEYS_MIGRATE_ON_BOOT: 'false' }, 'keys service ready'),
    startFromSources('media', 'apps/media/src/main.ts', common, 'media service ready'),
    startFromSources(
      'gateway',
      'apps/gateway/src/main.ts',
      { ...common, PORT: String(port), HOST: '127.0.0.1', RATE_LIMITS_ENABLED: 'false', REDIS_KEY_PREFIX: 'svc_bench_img:' },
      'gateway listening',
    ),
  ]);
  for (const p of procs) cleanups.push(() => p.stop());
  const api = `http://127.0.0.1:${port}/api/v1`;
  const rpc = new RpcClient(nc, 300_000);
  const blobs = BlobStore.connect(redis.url);
  cleanups.push(() => blobs.close());

  const params = (size: number, steps?: number): ImageGenerateParams => ({
    model: 'svc-zoo-image',
    prompt: 'a red circle on a white background',
    width: size,
    height: size,
    steps,
    seed: 1,
    variants: 1,
    format: 'png',
    embedExifMetadata: false,
    hideWatermark: false,
    safeMode: false,
  });
  /** The media service over NATS, as the gateway calls it (no HTTP, auth, admission). */
  const direct = async (p: ImageGenerateParams) => {
    const requestId = randomUUID();
    const reply = await rpc.send(
      MEDIA.IMAGE_GENERATE,
      { caller: { requestId, accountId: 'bench', apiKeyId: 'bench' }, params: p },
      { requestId, timeoutMs: 300_000 },
    );
    const bytes = await blobs.take(reply.images[0].blobId);
    if (!bytes) throw new Error('output blob missing');
    return { engineMs: reply.timing.inferenceMs, bytes: bytes.length };
  };
  const viaApi = async (p: ImageGenerateParams) => {
    const res = await fetch(`${api}/image/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: p.model,
        prompt: p.prompt,
        width: p.width,
        height: p.height,
        steps: p.steps,
        seed: p.seed,
        format: p.format,
        safe_mode: false,
        return_binary: true,
      }),
    });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`API answered ${res.status}: ${body.toString().slice(0, 200)}`);
    return body.length;
  };

  say('warm-up');
  for (let i = 0; i < 3; i++) {
    await direct(params(64, 1));
    await viaApi(params(64, 1));
  }

  const rows: Row[] = [];
  for (const size of sizes) {
    say(`${images} images at ${size}x${size} (model default steps), over NATS then through the API`);
    let started = Date.now();
    const engine: number[] = [];
    for (let i = 0; i < images; i++) engine.push((await direct(params(size))).engineMs);
    const natsMs = Date.now() - started;
    started = Date.now();
    let apiBytes = 0;
    for (let i = 0; i < images; i++) apiBytes = await viaApi(params(size));
    const apiMs = Date.now() - started;
    rows.push({ size, engineMs: percentile(engine, 50), natsPerMin: perMinute(images, natsMs), apiPerMin: perMinute(images, apiMs), apiBytes });
  }

  say(`gateway overhead: ${overheadN} binary 64x64 one-step requests per path, interleaved`);
  const natsLat: number[] = [];
  const apiLat: number[] = [];
  for (let i = 0; i < overheadN; i++) {
    let t = performance.now();
    await direct(params(64, 1));
    natsLat.push(performance.now() - t);
    t = performance.now();
    await viaApi(params(64, 1));
    apiLat.push(performance.now() - t);
  }

  const lines = [
    '| size | engine p50 (ms/image) | media over NATS (images/min) | through the API (images/min) | PNG bytes |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.size}x${r.size} | ${fmt(r.engineMs, 0)} | ${fmt(r.natsPerMin)} | ${fmt(r.apiPerMin)} | ${r.apiBytes} |`),
    '',
    `Binary response overhead (64x64, 1 step, ${overheadN} each): media over NATS p50 ${fmt(percentile(natsLat, 50))} ms, p99 ${fmt(percentile(natsLat, 99))} ms; ` +
      `through the API p50 ${fmt(percentile(apiLat, 50))} ms, p99 ${fmt(percentile(apiLat, 99))} ms; added by the gateway p50 ${fmt(percentile(apiLat, 50) - percentile(natsLat, 50))} ms.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  writeFileSync(
    path.join(__dirname, '..', 'last-run.json'),
    JSON.stringify({ at: new Date().toISOString(), images, rows, overhead: { nats: natsLat, api: apiLat } }, null, 2),
  );
  say(`logs in ${LOG_DIR}`);
}

runBench('bench:images', main, cleanups);
