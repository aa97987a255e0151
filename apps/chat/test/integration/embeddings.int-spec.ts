import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { serviceMigrationsDir } from '@svc/database';
import { createTestDatabase, freePort, PrivateNats, ServiceProcess, startPrivateNats, startService, TestDatabase } from '@svc/testing';

/**
 * POST /api/v1/embeddings through the whole path: a gateway, the keys, billing and chat services
 * as processes from the TypeScript sources, a private NATS, fresh databases, the committed zoo
 * embedding model and a fake OpenAI-compatible embeddings upstream. Prices are 1 USD per million
 * input tokens (1000 nano-USD per token), so every balance is exact.
 */
const CATALOG = `
models:
  - id: svc-zoo-embed
    name: Zoo embeddings (test copy)
    type: embedding
    engine: { kind: embedded-word-vectors, file: zoo/embeddings/svc-zoo-embed.svec }
    traits: [default]
    pricing: { input: { usd: 1, diem: 1 } }
    constraints: { dimensions: 160, minDimensions: 16, maxBatch: 4, maxInputTokens: 50 }
  - id: up-embed
    name: Upstream embeddings
    type: embedding
    engine: { kind: openai-compatible, baseUrl: "\${EMB_TEST_UPSTREAM_URL}", model: fake-embed, timeoutMs: 10000 }
    pricing: { input: { usd: 1, diem: 1 } }
    constraints: { dimensions: 256, minDimensions: 8, maxBatch: 2048, maxInputTokens: 8192 }
compatibilityMapping:
  text-embedding-3-small: svc-zoo-embed
`;

interface FakeEmbeddings {
  url: string;
  bodies: any[];
  close(): Promise<void>;
}

/** An OpenAI-compatible /v1/embeddings: vector i of an input is a function of its length and i; 1 token per 4 characters. */
async function startFakeEmbeddings(): Promise<FakeEmbeddings> {
  const bodies: any[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw);
      bodies.push(body);
      const dims = body.dimensions ?? 256;
      let tokens = 0;
      const data = (body.input as string[]).map((text, index) => {
        tokens += Math.ceil(text.length / 4);
        const v = Float32Array.from({ length: dims }, (_, i) => Math.sin(text.length + i));
        return { object: 'embedding', index, embedding: body.encoding_format === 'base64' ? Buffer.from(v.buffer).toString('base64') : Array.from(v) };
      });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies, close: () => new Promise((r) => server.close(() => r())) };
}

describe('POST /api/v1/embeddings (gateway, chat, billing, keys)', () => {
  const adminKey = `svc_emb_${randomBytes(18).toString('base64url')}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-emb-'));
  const stops: Array<() => Promise<void>> = [];
  let api: string;
  let client: OpenAI;
  let upstream: FakeEmbeddings;
  let gateway: ServiceProcess;
  let chat: ServiceProcess;
  /** What the bootstrap account should hold, in nano-USD. */
  let expectedNano = 100_000_000_000n;

  beforeAll(async () => {
    const catalogPath = path.join(dir, 'catalog.yaml');
    writeFileSync(catalogPath, CATALOG);
    const nats: PrivateNats = await startPrivateNats();
    stops.push(() => nats.stop());
    upstream = await startFakeEmbeddings();
    stops.push(() => upstream.close());
    const keysDb: TestDatabase = await createTestDatabase('embk', { migrationsDir: serviceMigrationsDir('keys') });
    stops.push(() => keysDb.drop());
    const billingDb: TestDatabase = await createTestDatabase('embb', { migrationsDir: serviceMigrationsDir('billing') });
    stops.push(() => billingDb.drop());
    const chatDb: TestDatabase = await createTestDatabase('embc', { migrationsDir: serviceMigrationsDir('chat') });
    stops.push(() => chatDb.drop());
    const common = { NATS_URL: nats.url, SVC_CATALOG_PATH: catalogPath, EMB_TEST_UPSTREAM_URL: upstream.url, LOG_LEVEL: 'info' };
    const keys = startService('keys', 'apps/keys/src/main.ts', {
      ...common,
      KEYS_DATABASE_URL: keysDb.url,
      KEYS_MIGRATE_ON_BOOT: 'false',
      SVC_ADMIN_KEY: adminKey,
    });
    const billing = startService('billing', 'apps/billing/src/main.ts', {
      ...common,
      BILLING_DATABASE_URL: billingDb.url,
      BILLING_MIGRATE_ON_BOOT: 'false',
      SVC_BOOTSTRAP_CREDITS_USD: '100',
    });
    chat = startService('chat', 'apps/chat/src/main.ts', { ...common, CHAT_DATABASE_URL: chatDb.url, CHAT_MIGRATE_ON_BOOT: 'false' });
    const port = await freePort();
    gateway = startService('gateway', 'apps/gateway/src/main.ts', {
      ...common,
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_KEY_PREFIX: `svc_test_emb_${randomBytes(4).toString('hex')}:`,
    });
    stops.push(
      () => gateway.stop(),
      () => chat.stop(),
      () => billing.stop(),
      () => keys.stop(),
    );
    await Promise.all([
      keys.waitFor('keys service ready', 90_000),
      billing.waitFor('billing service ready', 90_000),
      chat.waitFor('chat service ready', 90_000),
      gateway.waitFor('gateway listening', 90_000),
    ]);
    api = `http://127.0.0.1:${port}/api/v1`;
    client = new OpenAI({ baseURL: api, apiKey: adminKey, maxRetries: 0 });
  }, 180_000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (body: unknown) =>
    fetch(`${api}/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const usd = (nano: bigint) => {
    const fraction = (nano % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
    return `${nano / 1_000_000_000n}.${fraction.padEnd(2, '0')}`;
  };
  /** Settlement runs in the background in the chat service: poll the balance. */
  async function expectBalance(): Promise<void> {
    let last = '';
    for (const deadline = Date.now() + 8_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      last = (await fetch(`${api}/billing/balance`, { headers: { authorization: `Bearer ${adminKey}` } })).headers.get('x-svc-balance-usd') ?? '';
      if (last === usd(expectedNano)) return;
    }
    expect(last).toBe(usd(expectedNano));
  }
  const norm = (v: number[]) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));

  it('embeds with the official client; float and base64 decode to the same vectors; tokens are billed exactly', async () => {
    const input = ['The shepherd watched his sheep by night.', 'A king ruled the land with wisdom.'];
    const { data: floats, response } = await client.embeddings.create({ model: 'svc-zoo-embed', input, encoding_format: 'float' }).withResponse();
    expect(response.headers.get('x-svc-model-id')).toBe('svc-zoo-embed');
    expect(response.headers.get('cf-ray')).toBeTruthy();
    // The spec's embedding limit class: 500 requests per minute.
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('500');
    expect(response.headers.get('x-svc-balance-usd')).toBe('100.00');
    expect(floats.object).toBe('list');
    expect(floats.model).toBe('svc-zoo-embed');
    expect(floats.data.map((d) => [d.object, d.index, d.embedding.length])).toEqual([
      ['embedding', 0, 160],
      ['embedding', 1, 160],
    ]);
    expect(norm(floats.data[0].embedding)).toBeCloseTo(1, 5);
    // 7 + 7 words: the word-vector model counts words as tokens.
    expect(floats.usage).toEqual({ prompt_tokens: 14, total_tokens: 14 });
    expectedNano -= 14n * 1000n;

    const b64 = await client.embeddings.create({ model: 'svc-zoo-embed', input, encoding_format: 'base64' });
    const decoded = b64.data.map((d) => Array.from(new Float32Array(new Uint8Array(Buffer.from(d.embedding as unknown as string, 'base64')).buffer)));
    expect(decoded).toEqual(floats.data.map((d) => d.embedding));
    expectedNano -= 14n * 1000n;

    // Without encoding_format the client asks for base64 and decodes it itself.
    const byDefault = await client.embeddings.create({ model: 'text-embedding-3-small', input: input[0] });
    expect(byDefault.data[0].embedding).toEqual(floats.data[0].embedding);
    expectedNano -= 7n * 1000n;
    await expectBalance();
  });

  it('shortens vectors to the requested dimensions, unit length, and refuses sizes the model does not allow', async () => {
    const short = await client.embeddings.create({ model: 'svc-zoo-embed', input: 'a king and a queen', dimensions: 32, encoding_format: 'float' });
    expect(short.data[0].embedding).toHaveLength(32);
    expect(norm(short.data[0].embedding)).toBeCloseTo(1, 5);
    expectedNano -= 5n * 1000n;
    for (const dimensions of [8, 161]) {
      const res = await post({ model: 'svc-zoo-embed', input: 'x', dimensions });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: `dimensions ${dimensions} is not supported by model svc-zoo-embed (allowed: 16 to 160).`,
        details: { _errors: [], dimensions: { _errors: ['allowed: 16 to 160'] } },
      });
    }
    await expectBalance();
  });

  it('answers 400 for token arrays, too many inputs and an input over the model token limit, charging nothing', async () => {
    const tokens = await post({ model: 'svc-zoo-embed', input: [1, 2, 3] });
    expect(tokens.status).toBe(400);
    expect(((await tokens.json()) as any).error).toMatch(/arrays of token IDs are not supported/);
    const nested = await post({ model: 'svc-zoo-embed', input: [[1, 2], [3]] });
    expect(nested.status).toBe(400);

    const many = await post({ model: 'svc-zoo-embed', input: ['a', 'b', 'c', 'd', 'e'] });
    expect(many.status).toBe(400);
    expect(((await many.json()) as any).error).toBe('input has 5 items; model svc-zoo-embed accepts at most 4 per request.');

    const long = await post({ model: 'svc-zoo-embed', input: ['short', 'word '.repeat(51)] });
    expect(long.status).toBe(400);
    expect(await long.json()).toEqual({
      error: 'Input 1 has 51 tokens; model svc-zoo-embed accepts at most 50 per input.',
      details: { _errors: [], input: { _errors: ['input 1 exceeds 50 tokens'] } },
    });

    const empty = await post({ model: 'svc-zoo-embed', input: '' });
    expect(empty.status).toBe(400);
    const unknown = await post({ model: 'no-such-model', input: 'x' });
    expect(unknown.status).toBe(404);
    await expectBalance();
  });

  it('proxies upstream OpenAI-compatible servers, forwarding dimensions and billing their token count', async () => {
    const res = await client.embeddings.create({ model: 'up-embed', input: ['abcd', 'abcdefgh'], dimensions: 8, encoding_format: 'float' });
    expect(upstream.bodies.at(-1)).toEqual({ model: 'fake-embed', input: ['abcd', 'abcdefgh'], encoding_format: 'base64', dimensions: 8 });
    expect(res.data[1].embedding).toHaveLength(8);
    expect(res.data[1].embedding[0]).toBeCloseTo(Math.sin(8), 6);
    expect(res.usage.prompt_tokens).toBe(3);
    expectedNano -= 3n * 1000n;
    await expectBalance();
  });

  it('moves large batches through Redis both ways (over the NATS message size) with the same result', async () => {
    const input = Array.from({ length: 2048 }, (_, i) => `item ${i} `.padEnd(150, 'x'));
    const res = await post({ model: 'up-embed', input, encoding_format: 'base64' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.data).toHaveLength(2048);
    const last = new Float32Array(new Uint8Array(Buffer.from(body.data[2047].embedding, 'base64')).buffer);
    expect(last).toHaveLength(256);
    expect(last[3]).toBeCloseTo(Math.sin(150 + 3), 6);
    expect(body.usage.prompt_tokens).toBe(2048 * 38);
    expectedNano -= 2048n * 38n * 1000n;
    await expectBalance();
  });

  it('never logs inputs', () => {
    for (const output of [gateway.output(), chat.output()]) {
      expect(output).not.toContain('shepherd watched');
      expect(output).not.toContain('a king and a queen');
    }
  });
});
