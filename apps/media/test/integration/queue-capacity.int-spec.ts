import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { parse, stringify } from 'yaml';
import { REPO_ROOT } from '@svc/config';
import { ImageStack, startImageStack } from './support/image-stack';

/**
 * An embedded image model at capacity, through the API: a catalog copy of the zoo model with one
 * image at a time and one waiting (`maxParallel: 1`, `maxQueue: 1`) receives concurrent requests.
 * Those beyond capacity get 503 in the spec's StandardError shape at once, the others their image,
 * and the balance moves by the successful images only (failed requests release their hold).
 */
const MODEL = 'svc-zoo-image-q1';
const PRICE_NANO_USD = 1_000_000; // 0.001 USD per image
let stack: ImageStack;
let dir: string;

beforeAll(async () => {
  const catalog = parse(readFileSync(path.join(REPO_ROOT, 'config/models.yaml'), 'utf8')) as { models: Array<Record<string, any>> };
  const zoo = catalog.models.find((m) => m.id === 'svc-zoo-image');
  if (!zoo || zoo.engine?.kind !== 'embedded-onnx-diffusion') throw new Error('svc-zoo-image must be an embedded-onnx-diffusion model');
  catalog.models.push({
    ...zoo,
    id: MODEL,
    name: 'Zoo image, one at a time (test)',
    traits: [],
    engine: { ...zoo.engine, maxParallel: 1, maxQueue: 1 },
    pricing: { generation: { usd: 0.001, diem: 0.001 } },
  });
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-queue-'));
  const catalogPath = path.join(dir, 'models.yaml');
  writeFileSync(catalogPath, stringify(catalog));
  stack = await startImageStack({
    mediaEnv: { SVC_CATALOG_PATH: catalogPath, SAFE_MODE_CLASSIFIER: 'off' },
    gatewayEnv: { SVC_CATALOG_PATH: catalogPath, ABUSE_WINDOW_MS: '1000', ABUSE_BLOCK_MS: '1000' },
  });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function generate(seed: number): Promise<{ status: number; headers: Headers; json: any }> {
  // 40 denoising steps: about 2 s per image here, so the burst below arrives while the first runs.
  const res = await fetch(`${stack.api}/image/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: MODEL,
      prompt: 'a red circle on a white background',
      width: 64,
      height: 64,
      steps: 40,
      seed,
      format: 'png',
      safe_mode: false,
    }),
  });
  return { status: res.status, headers: res.headers, json: await res.json() };
}

async function balanceNanoUsd(): Promise<number> {
  const res = await fetch(`${stack.api}/billing/balance`, { headers: { authorization: `Bearer ${stack.adminKey}` } });
  const body = (await res.json()) as any;
  return Math.round(Number(body.balances?.USD ?? body.balances?.usd ?? body.usd) * 1e9);
}

it('answers 503 beyond maxParallel + maxQueue, serves the rest, and charges only for the images made', async () => {
  const before = await balanceNanoUsd();
  const burst = await Promise.all([1, 2, 3, 4, 5].map((seed) => generate(seed)));
  const ok = burst.filter((r) => r.status === 200);
  const busy = burst.filter((r) => r.status === 503);
  expect(ok.length + busy.length).toBe(5);
  // One running and one queued at most at any moment: the other requests cannot all be served.
  expect(ok.length).toBeGreaterThanOrEqual(2);
  expect(busy.length).toBeGreaterThanOrEqual(1);
  for (const res of ok) expect(await sharp(Buffer.from(res.json.images[0], 'base64')).metadata()).toMatchObject({ format: 'png', width: 64, height: 64 });
  for (const res of busy) {
    // StandardError: exactly {error}, with the request id header like every answer.
    expect(Object.keys(res.json)).toEqual(['error']);
    expect(res.json.error).toMatch(/busy.*Retry later/);
    expect(res.headers.get('cf-ray')).toBeTruthy();
  }

  // Settlement is asynchronous: wait until the charge for the served images arrives, then make
  // sure nothing more (no hold of a refused request) is taken.
  const expected = ok.length * PRICE_NANO_USD;
  let spent = 0;
  for (let i = 0; i < 50 && spent < expected; i++) {
    await new Promise((r) => setTimeout(r, 100));
    spent = before - (await balanceNanoUsd());
  }
  await new Promise((r) => setTimeout(r, 500));
  expect(before - (await balanceNanoUsd())).toBe(expected);

  // The queue drains: once the burst is over the model serves again.
  const after = await generate(99);
  expect(after.status).toBe(200);
});
