import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import sharp from 'sharp';
import { MODERATION_CATEGORIES } from '@svc/contracts';
import { dropTestDatabase, FakeOpenAiUpstream, RunningFakeUpstream, RunningPlatform, startFakeOpenAiUpstream, startPlatform } from '@svc/testing';

/**
 * `POST /moderations` through the official client: images judged by the embedded safe-mode
 * classifier (shipped catalog), text refused where no text moderation model is configured, and a
 * moderation model on an upstream server (the fake upstream, which judges nothing: it flags what
 * a text marks `[flag:<category>]`), priced per input.
 */
const client = (platform: RunningPlatform) => new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
const balance = async (platform: RunningPlatform) =>
  (await fetch(`${platform.apiUrl}/billing/balance`, { headers: { authorization: `Bearer ${platform.adminKey}` } })).headers.get('x-svc-balance-usd') ?? '';
const pngDataUrl = async () =>
  `data:image/png;base64,${(
    await sharp({ create: { width: 96, height: 96, channels: 3, background: { r: 40, g: 90, b: 200 } } })
      .png()
      .toBuffer()
  ).toString('base64')}`;

async function failure(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

describe('moderations with the shipped catalog', () => {
  let platform: RunningPlatform;

  beforeAll(async () => {
    platform = await startPlatform();
  }, 120_000);
  afterAll(async () => {
    await platform?.stop();
  });

  it("classifies an image with the embedded classifier in OpenAI's shape, scoring only sexual, free", async () => {
    const res = await client(platform).moderations.create({
      model: 'omni-moderation-latest',
      input: [{ type: 'image_url', image_url: { url: await pngDataUrl() } }],
    });
    expect(res.id).toMatch(/^modr-/);
    expect(res.model).toBe('svc-image-safety');
    expect(res.results).toHaveLength(1);
    const [result] = res.results;
    expect(Object.keys(result.categories).sort()).toEqual([...MODERATION_CATEGORIES].sort());
    const sexual = result.category_scores.sexual;
    expect(sexual).toBeGreaterThanOrEqual(0);
    expect(sexual).toBeLessThanOrEqual(1);
    expect(result.categories.sexual).toBe(sexual >= 0.5);
    expect(result.flagged).toBe(result.categories.sexual);
    expect(result.category_applied_input_types.sexual).toEqual(['image']);
    for (const category of MODERATION_CATEGORIES.filter((c) => c !== 'sexual')) {
      expect([result.categories[category], result.category_scores[category as keyof typeof result.category_scores]]).toEqual([false, 0]);
    }
    expect(await balance(platform)).toBe('100.00');
  });

  it('refuses text with a 400 saying no text moderation model is configured, named model or not', async () => {
    for (const model of [undefined, 'omni-moderation-latest']) {
      const err = await failure(client(platform).moderations.create({ input: 'Is this fine?', ...(model ? { model } : {}) }));
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/No text moderation model is configured on this server/);
    }
  });

  it('refuses an image that is not one, on input', async () => {
    const res = await fetch(`${platform.apiUrl}/moderations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,bm90IGFuIGltYWdl' } }] }),
    });
    expect(res.status).toBe(400);
  });
});

const CATALOG = `
models:
  - id: e2e-chat
    name: E2E chat on the fake upstream
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${MODERATION_E2E_UPSTREAM_URL}", model: fake-model, timeoutMs: 10000 }
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
  - id: svc-image-safety
    name: Image safety (embedded classifier)
    type: moderation
    engine: { kind: embedded-image-safety }
    traits: [default]
    pricing: {}
  - id: e2e-moderation
    name: E2E moderation on the fake upstream
    type: moderation
    engine: { kind: openai-compatible, baseUrl: "\${MODERATION_E2E_UPSTREAM_URL}", model: omni-upstream, timeoutMs: 10000 }
    pricing: { per_request: { usd: 0.001, diem: 0.001 } }
`;

describe('moderations on an upstream moderation model', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-moderations-'));
  let upstream: RunningFakeUpstream & { upstream: FakeOpenAiUpstream };
  let platform: RunningPlatform;

  beforeAll(async () => {
    upstream = await startFakeOpenAiUpstream();
    const catalog = path.join(dir, 'catalog.yaml');
    writeFileSync(catalog, CATALOG);
    platform = await startPlatform({ env: { SVC_CATALOG_PATH: catalog, MODERATION_E2E_UPSTREAM_URL: upstream.baseUrl } });
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
    await upstream?.close();
    for (const name of ['KEYS_DATABASE_URL', 'BILLING_DATABASE_URL', 'CHAT_DATABASE_URL', 'WALLET_DATABASE_URL'] as const) {
      if (platform?.env[name]) await dropTestDatabase(platform.env[name]).catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends text to the model that reads it, answers the upstream's results, and charges per input", async () => {
    upstream.upstream.clearRequests();
    const res = await client(platform).moderations.create({ input: ['A calm day by the sea.', 'I will [flag:violence] them.'] });
    expect(res.model).toBe('e2e-moderation');
    expect(res.results.map((r) => [r.flagged, r.categories.violence, r.category_scores.violence])).toEqual([
      [false, false, 0],
      [true, true, 1],
    ]);
    const sent = upstream.upstream.requests.filter((r) => r.path === '/v1/moderations');
    expect(sent.map((r) => r.body)).toEqual([{ model: 'omni-upstream', input: ['A calm day by the sea.', 'I will [flag:violence] them.'] }]);
    let seen = '';
    for (const deadline = Date.now() + 8_000; Date.now() < deadline && seen !== '99.998'; await new Promise((r) => setTimeout(r, 100)))
      seen = await balance(platform);
    expect(seen).toBe('99.998');
  });

  it('passes text and an image (as a data URL) to the upstream as one input with one result', async () => {
    upstream.upstream.clearRequests();
    const url = await pngDataUrl();
    const res = await client(platform).moderations.create({
      model: 'e2e-moderation',
      input: [
        { type: 'text', text: 'a picture [flag:self-harm]' },
        { type: 'image_url', image_url: { url } },
      ],
    });
    expect(res.results).toHaveLength(1);
    expect(res.results[0].categories['self-harm']).toBe(true);
    const [sent] = upstream.upstream.requests.filter((r) => r.path === '/v1/moderations');
    expect(sent.body).toEqual({
      model: 'omni-upstream',
      input: [
        { type: 'text', text: 'a picture [flag:self-harm]' },
        { type: 'image_url', image_url: { url } },
      ],
    });
  });
});
