import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { ModelDefinition } from '@svc/catalog';
import { promptBudgetOf, SVC_PARAMETER_DEFAULTS } from '@svc/contracts';
import { PrivateRedis, startPrivateRedis } from '@svc/testing';
import { chatWorstCase } from '../../src/chat/chat-worst-case';
import { Gateway, RATE_LIMIT_SYSTEM_PROMPT, RateLimitStack, startRateLimitStack, TestCaller } from './support/rate-limit-stack';

/**
 * Rate limits and the abuse block with two gateway processes sharing one Redis (under a key
 * prefix of this run), a private NATS server, the keys and chat services, and a fake upstream.
 */
const ABUSE_WINDOW_MS = 3_000;
const ABUSE_BLOCK_MS = 3_000;
const DAY_MS = 86_400_000;

let stack: RateLimitStack;
let a: Gateway;
let b: Gateway;

beforeAll(async () => {
  stack = await startRateLimitStack();
  const env = { ABUSE_WINDOW_MS: String(ABUSE_WINDOW_MS), ABUSE_BLOCK_MS: String(ABUSE_BLOCK_MS) };
  [a, b] = await Promise.all([stack.startGateway('gateway-a', env), stack.startGateway('gateway-b', env)]);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function call(gateway: Gateway, path: string, init: { key?: string; method?: string; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  const res = await fetch(`${gateway.api}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const chatBody = (over: Record<string, unknown> = {}) => ({ model: 'rl-text', messages: [{ role: 'user', content: 'hello' }], max_tokens: 16, ...over });
const chat = (gateway: Gateway, key: string, over: Record<string, unknown> = {}) => call(gateway, '/chat/completions', { key, body: chatBody(over) });
/** A streamed chat: its status, and whether the stream ended with `[DONE]`. */
async function streamChat(gateway: Gateway, key: string): Promise<{ status: number; done: boolean }> {
  const res = await fetch(`${gateway.api}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(chatBody({ stream: true })),
  });
  return { status: res.status, done: (await res.text()).includes('data: [DONE]') };
}
/** The gateway's hold for a one-message chat (docs/billing.md, "What a hold covers"), with the stack's system prompt. */
const budget = promptBudgetOf(RATE_LIMIT_SYSTEM_PROMPT, '/no_think');
const rlText = { id: 'rl-text', engine: { kind: 'openai-compatible' }, availableContextTokens: 8192, maxCompletionTokens: 2048 } as ModelDefinition;
const estimate = (content: string, maxTokens: number) => {
  const worst = chatWorstCase(
    { model: 'rl-text', messages: [{ role: 'user', content }], max_tokens: maxTokens, svc_parameters: SVC_PARAMETER_DEFAULTS },
    rlText,
    { budget, personaBytes: 0 },
  );
  return worst.promptTokens + worst.completionTokens;
};
const num = (answer: Answer, header: string) => Number(answer.headers.get(header));
const statuses = (answers: Answer[]) => answers.reduce<Record<number, number>>((acc, x) => ({ ...acc, [x.status]: (acc[x.status] ?? 0) + 1 }), {});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const badKey = () => `svc_${randomBytes(32).toString('base64url')}`;
const gatewayOf = (i: number) => (i % 2 === 0 ? a : b);

describe('rate limits shared by two gateway processes', () => {
  it('admits exactly N of 5N concurrent requests split across both (the catalog tier default, then a key limit)', async () => {
    const caller = await newCaller();
    const burst = await Promise.all(Array.from({ length: 100 }, (_, i) => chat(gatewayOf(i), caller.inference.secret)));
    expect(statuses(burst)).toEqual({ 200: 20, 429: 80 });
    for (const refused of burst.filter((x) => x.status === 429)) {
      expect(refused.body).toEqual({ error: expect.any(String) });
      expect(refused.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+$/);
    }
    // Another model is another counter.
    expect((await chat(a, caller.admin.secret, { model: 'rl-text-xs' })).status).toBe(200);

    const other = await newCaller();
    await stack.setKeyLimits(other.inference.id, { target: '*', rpm: 7 });
    const limited = await Promise.all(Array.from({ length: 35 }, (_, i) => chat(gatewayOf(i), other.inference.secret)));
    expect(statuses(limited)).toEqual({ 200: 7, 429: 28 });
    expect(limited.find((x) => x.status === 429)?.headers.get('x-ratelimit-type')).toBe('api_key');
    // The key's limit is its own: the account's other key still has the tier's 20.
    expect((await chat(b, other.admin.secret)).status).toBe(200);
  });

  it('counts requests and tokens down correctly across both processes, and refuses with the reset headers', async () => {
    const caller = await newCaller();
    const answers: Answer[] = [];
    let resetAt = 0;
    for (let i = 0; i < 20; i++) {
      // Token settlement (reservation -> actual) is written just after each response, not before
      // it; give the previous one time to land so the exact countdown below is deterministic.
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      const before = Date.now();
      const answer = await chat(gatewayOf(i), caller.inference.secret);
      expect(answer.status).toBe(200);
      if (i === 0) {
        resetAt = num(answer, 'x-ratelimit-reset-requests');
        expect(resetAt * 1000).toBeGreaterThanOrEqual(before + 59_000);
        expect(resetAt * 1000).toBeLessThanOrEqual(Date.now() + 61_000);
      }
      expect(answer.headers.get('x-ratelimit-limit-requests')).toBe('20');
      expect(num(answer, 'x-ratelimit-remaining-requests')).toBe(19 - i);
      expect(num(answer, 'x-ratelimit-reset-requests')).toBe(resetAt);
      expect(answer.headers.get('x-ratelimit-type')).toBe('user');
      // Earlier requests count what they used; this one its reservation (prompt bound + max_tokens).
      const usedBefore = answers.reduce((sum, x) => sum + x.body.usage.prompt_tokens + x.body.usage.completion_tokens, 0);
      expect(answer.headers.get('x-ratelimit-limit-tokens')).toBe('500000');
      expect(num(answer, 'x-ratelimit-remaining-tokens')).toBe(500_000 - usedBefore - estimate('hello', 16));
      // Seconds until the oldest counted tokens leave the 60 s window (the first request's).
      const sinceFirst = (Date.now() - resetAt * 1000 + 60_000) / 1000;
      expect(num(answer, 'x-ratelimit-reset-tokens')).toBeGreaterThanOrEqual(Math.floor(59 - sinceFirst));
      expect(num(answer, 'x-ratelimit-reset-tokens')).toBeLessThanOrEqual(60);
      answers.push(answer);
    }
    const refused = await chat(b, caller.inference.secret);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/20 requests per minute on model rl-text for your account/);
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(num(refused, 'x-ratelimit-reset-requests')).toBe(resetAt);
    expect(refused.headers.get('x-ratelimit-type')).toBe('user');
    expect(refused.headers.get('cf-ray')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('holds token limits: admission reserves prompt plus max_tokens, settlement corrects to actual usage', async () => {
    const caller = await newCaller();
    await stack.setAccountLimits(caller.accountId, { target: 'model:rl-text', tpm: 1_000 });
    const cost = estimate('hello', 300);
    stack.upstream.configure({ firstTokenDelayMs: 400 });
    let burst: Answer[];
    try {
      burst = await Promise.all(Array.from({ length: 10 }, (_, i) => chat(gatewayOf(i), caller.inference.secret, { max_tokens: 300 })));
    } finally {
      stack.upstream.configure({ firstTokenDelayMs: 0 });
    }
    const admitted = Math.floor(1_000 / cost);
    expect(statuses(burst)).toEqual({ 200: admitted, 429: 10 - admitted });
    const refused = burst.find((x) => x.status === 429)!;
    expect(refused.body.error).toMatch(/1000 tokens per minute on model rl-text for your account/);
    expect(refused.headers.get('x-ratelimit-type')).toBe('user');
    expect(num(refused, 'x-ratelimit-reset-tokens')).toBeGreaterThan(0);

    const used = burst.filter((x) => x.status === 200).reduce((sum, x) => sum + x.body.usage.prompt_tokens + x.body.usage.completion_tokens, 0);
    const next = await chat(b, caller.inference.secret, { max_tokens: 300 });
    expect(next.status).toBe(200);
    expect(num(next, 'x-ratelimit-remaining-tokens')).toBe(1_000 - used - cost);

    const tooLarge = await chat(a, caller.inference.secret, { max_tokens: 1_000 });
    expect(tooLarge.status).toBe(429);
    expect(tooLarge.body.error).toMatch(/Request too large for model rl-text/);
  });

  it('limits requests per day where configured, and logs every hit for ADMIN keys', async () => {
    const caller = await newCaller();
    await stack.setKeyLimits(caller.inference.id, { target: 'text:L', rpd: 2 });
    expect((await chat(a, caller.inference.secret)).status).toBe(200);
    expect((await chat(b, caller.inference.secret)).status).toBe(200);
    const refused = await chat(a, caller.inference.secret);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/2 requests per day/);
    expect(num(refused, 'x-ratelimit-reset-requests')).toBe((Math.floor(Date.now() / DAY_MS) + 1) * (DAY_MS / 1000));
    expect(refused.headers.get('x-ratelimit-type')).toBe('api_key');

    const log = await call(b, '/api_keys/rate_limits/log', { key: caller.admin.secret });
    expect(log.status).toBe(200);
    expect(log.body).toEqual({
      object: 'list',
      data: [{ apiKeyId: caller.inference.id, modelId: 'rl-text', rateLimitTier: 'paid', rateLimitType: 'RPD', timestamp: expect.any(String) }],
    });
    expect(Math.abs(Date.parse(log.body.data[0].timestamp) - Date.now())).toBeLessThan(10_000);
    expect(log.headers.get('x-ratelimit-limit-requests')).toBeTruthy();

    const notAdmin = await call(a, '/api_keys/rate_limits/log', { key: caller.inference.secret });
    expect(notAdmin.status).toBe(401);
    expect(notAdmin.body).toEqual({ error: 'Admin API key required' });
  });

  it('GET /api_keys/rate_limits shows the tier, balances and the per-model limits of the calling key', async () => {
    const caller = await newCaller();
    await stack.setTier(caller.accountId, 'PARTNER');
    await stack.setKeyLimits(caller.inference.id, { target: 'model:rl-text', rpm: 5 });
    const asAdmin = await call(a, '/api_keys/rate_limits', { key: caller.admin.secret });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.data).toEqual({
      accessPermitted: true,
      apiTier: { id: 'partner', isCharged: true },
      balances: expect.any(Object),
      keyExpiration: null,
      nextEpochBegins: new Date((Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS).toISOString(),
      rateLimits: [
        {
          apiModelId: 'rl-text',
          rateLimits: [
            { amount: 60, type: 'RPM' },
            { amount: 1_000_000, type: 'TPM' },
          ],
        },
        {
          apiModelId: 'rl-text-xs',
          rateLimits: [
            { amount: 500, type: 'RPM' },
            { amount: 2_000_000, type: 'TPM' },
          ],
        },
        { apiModelId: 'rl-image', rateLimits: [{ amount: 60, type: 'RPM' }] },
      ],
    });
    // Non-inference responses show the default text model's counters.
    expect(asAdmin.headers.get('x-ratelimit-limit-requests')).toBe('60');
    expect(asAdmin.headers.get('x-ratelimit-remaining-requests')).toBe('60');
    expect(asAdmin.headers.get('x-ratelimit-type')).toBe('user');

    const asInference = await call(b, '/api_keys/rate_limits', { key: caller.inference.secret });
    expect(asInference.body.data.rateLimits[0]).toEqual({
      apiModelId: 'rl-text',
      rateLimits: [
        { amount: 5, type: 'RPM' },
        { amount: 1_000_000, type: 'TPM' },
      ],
    });
    expect(asInference.headers.get('x-ratelimit-limit-requests')).toBe('5');
    expect(asInference.headers.get('x-ratelimit-type')).toBe('api_key');

    const keys = await call(a, '/api_keys', { key: caller.admin.secret });
    expect(keys.status).toBe(200);
    expect(keys.headers.get('x-ratelimit-limit-tokens')).toBe('1000000');
  });
});

describe('leases: far from its limits an account is admitted from a replica-local lease of its window', () => {
  it('still admits exactly N of 1.5N concurrent requests split across both processes', async () => {
    // 160 a minute: the first admissions lease up to 9 slots each (a sixteenth of what is left).
    const caller = await newCaller();
    await stack.setAccountLimits(caller.accountId, { target: 'model:rl-text', rpm: 160 });
    const burst = await Promise.all(Array.from({ length: 240 }, (_, i) => chat(gatewayOf(i), caller.inference.secret)));
    expect(statuses(burst)).toEqual({ 200: 160, 429: 80 });
    await sleep(600); // every lease closed: Redis holds exactly the 160 admitted
    const after = await chat(b, caller.inference.secret);
    expect(after.status).toBe(429);
    expect(after.headers.get('x-ratelimit-remaining-requests')).toBe('0');
  }, 60_000);

  it('counts down exactly on one process, and hands Redis exact counts and tokens when the lease closes', async () => {
    const caller = await newCaller();
    await stack.setAccountLimits(caller.accountId, { target: 'model:rl-text', rpm: 1_000, tpm: 10_000_000 });
    const answers: Answer[] = [];
    for (let i = 0; i < 30; i++) {
      const answer = await chat(a, caller.inference.secret);
      expect(answer.status).toBe(200);
      expect(num(answer, 'x-ratelimit-remaining-requests')).toBe(999 - i);
      answers.push(answer);
    }
    await sleep(600);
    const used = answers.reduce((sum, x) => sum + x.body.usage.prompt_tokens + x.body.usage.completion_tokens, 0);
    const next = await chat(b, caller.inference.secret);
    expect(next.status).toBe(200);
    expect(num(next, 'x-ratelimit-remaining-requests')).toBe(1_000 - 31);
    expect(num(next, 'x-ratelimit-remaining-tokens')).toBe(10_000_000 - used - estimate('hello', 16));
  }, 60_000);
});

describe('the abuse block, shared by both processes', () => {
  const blockMessage = /^Too many failed attempts \(over 20\) resulted in non-success status codes\. Please wait 3s/;

  it('blocks an API key after its 21st failure within the window, only that key, and lifts after the block time', async () => {
    const caller = await newCaller();
    // A key in use on both replicas (their hot path checks it during admission, not before).
    expect((await chat(a, caller.inference.secret)).status).toBe(200);
    expect((await chat(b, caller.inference.secret)).status).toBe(200);
    for (let i = 0; i < 21; i++)
      expect((await call(gatewayOf(i), '/chat/completions', { key: caller.inference.secret, body: { model: 'rl-text' } })).status).toBe(400);
    const blocked = await chat(a, caller.inference.secret);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ error: expect.stringMatching(blockMessage) });
    expect(blocked.headers.get('x-ratelimit-type')).toBe('api_key');
    expect(num(blocked, 'x-ratelimit-reset-requests') * 1000).toBeGreaterThan(Date.now());
    // Blocked whatever the request: one that would fail validation, another route, the other process.
    const invalid = await call(b, '/chat/completions', { key: caller.inference.secret, body: { model: 'rl-text' } });
    expect(invalid.status).toBe(429);
    expect(invalid.body).toEqual({ error: expect.stringMatching(blockMessage) });
    expect(invalid.headers.get('x-ratelimit-reset-requests')).toBe(blocked.headers.get('x-ratelimit-reset-requests'));
    expect((await call(a, '/api_keys/rate_limits', { key: caller.inference.secret })).status).toBe(429);
    expect((await chat(b, caller.admin.secret)).status).toBe(200);
    expect((await call(b, '/models')).status).toBe(200);

    const log = await call(a, '/api_keys/rate_limits/log', { key: caller.admin.secret });
    expect(log.body.data[0]).toEqual(expect.objectContaining({ apiKeyId: caller.inference.id, modelId: 'rl-text', rateLimitType: 'FAILED_REQUESTS' }));

    await sleep(ABUSE_BLOCK_MS + 200);
    expect((await chat(b, caller.inference.secret)).status).toBe(200);
  });

  it('does not count the platform’s own failures (5xx) against a caller', async () => {
    const caller = await newCaller();
    expect((await chat(a, caller.inference.secret)).status).toBe(200);
    // rl-image is listed, but no media service runs in this stack: every request is a 503.
    for (let i = 0; i < 25; i++) {
      const failed = await call(gatewayOf(i), '/image/generate', { key: caller.inference.secret, body: { model: 'rl-image', prompt: 'a red cube' } });
      expect(failed.status).toBeGreaterThanOrEqual(500);
    }
    expect((await chat(b, caller.inference.secret)).status).toBe(200);
    expect((await call(a, '/api_keys/rate_limits/log', { key: caller.admin.secret })).body.data).toEqual([]);
  });

  describe('callers without a valid key, by address', () => {
    beforeAll(() => sleep(ABUSE_WINDOW_MS + 200), 10_000);

    it('blocks on the 21st failure within the window across both processes; the block is not itself counted; it lifts', async () => {
      const caller = await newCaller();
      const seenKey = caller.inference.secret;
      // A key that worked on both replicas keeps working behind a blocked address; one never seen does not.
      expect((await chat(a, seenKey)).status).toBe(200);
      expect((await chat(b, seenKey)).status).toBe(200);
      const unseen = await stack.newKey(caller.accountId);
      // A key only ever used to stream is seen to work too (a streamed answer never passes Fastify's onSend).
      const streaming = await stack.newKey(caller.accountId);
      expect(await streamChat(a, streaming.secret)).toEqual({ status: 200, done: true });
      expect(await streamChat(b, streaming.secret)).toEqual({ status: 200, done: true });

      for (let i = 0; i < 20; i++) expect((await chat(gatewayOf(i), badKey())).status).toBe(401);
      // 20 failures are allowed, the 21st is answered normally and starts the block.
      expect((await chat(a, badKey())).status).toBe(401);
      const blocked = await chat(b, badKey());
      expect(blocked.status).toBe(429);
      expect(blocked.body.error).toMatch(blockMessage);
      expect(blocked.headers.get('retry-after')).toMatch(/^[1-3]$/);
      expect(num(blocked, 'retry-after-ms')).toBeGreaterThan((num(blocked, 'retry-after') - 1) * 1000);
      expect(num(blocked, 'retry-after-ms')).toBeLessThanOrEqual(ABUSE_BLOCK_MS);
      expect((await call(a, '/models')).status).toBe(429);
      expect((await call(b, '/chat/completions', { body: chatBody() })).status).toBe(429);
      expect((await chat(a, seenKey)).status).toBe(200);
      expect((await chat(b, unseen.secret)).status).toBe(429);
      expect(await streamChat(a, streaming.secret)).toEqual({ status: 200, done: true });
      expect(await streamChat(b, streaming.secret)).toEqual({ status: 200, done: true });
      for (let i = 0; i < 10; i++) expect((await chat(gatewayOf(i), badKey())).status).toBe(429);

      await sleep(num(blocked, 'x-ratelimit-reset-requests') * 1000 - Date.now() + 200);
      // The 10 blocked requests did not count: 20 failures are allowed again before the next block.
      for (let i = 0; i < 20; i++) expect((await chat(gatewayOf(i), badKey())).status).toBe(401);
      expect((await call(b, '/models')).status).toBe(200);
      expect((await chat(b, badKey())).status).toBe(401);
      expect((await chat(a, badKey())).status).toBe(429);
    });
  });
});

describe('while Redis is unreachable', () => {
  let redis: PrivateRedis;
  let c: Gateway;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    c = await stack.startGateway('gateway-c', {
      REDIS_URL: redis.url,
      RATE_LIMIT_FALLBACK_REPLICAS: '2',
      ABUSE_WINDOW_MS: String(ABUSE_WINDOW_MS),
      ABUSE_BLOCK_MS: String(ABUSE_BLOCK_MS),
    });
  }, 120_000);

  afterAll(async () => {
    await c?.process.stop();
    await redis?.stop();
  });

  it('refuses requests without a key, limits keyed requests locally (a replica share), logs it, and recovers by itself', async () => {
    const caller = await newCaller();
    await stack.setKeyLimits(caller.inference.id, { target: '*', rpm: 10 });
    const shared = await chat(c, caller.inference.secret);
    expect(shared.status).toBe(200);
    expect(shared.headers.get('x-ratelimit-limit-requests')).toBe('10');

    await redis.stop();
    const refused = await eventually(async () => {
      const answer = await call(c, '/models');
      return answer.status === 503 ? answer : undefined;
    });
    expect(refused.body).toEqual({ error: expect.stringMatching(/without an API key are refused/) });
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.headers.get('retry-after-ms')).toBe('5000');
    expect((await call(c, '/chat/completions', { body: chatBody() })).status).toBe(503);

    // RATE_LIMIT_FALLBACK_REPLICAS=2: this replica admits half of the key's 10 per minute on its own.
    const local: Answer[] = [];
    for (let i = 0; i < 6; i++) local.push(await chat(c, caller.inference.secret));
    expect(local.map((x) => x.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(local[0].headers.get('x-ratelimit-limit-requests')).toBe('5');
    expect(local[0].headers.get('x-ratelimit-remaining-requests')).toBe('4');
    expect((await chat(c, badKey())).status).toBe(401);
    expect(c.process.output()).toContain('rate limits and abuse protection degraded');

    await redis.start();
    const recovered = await eventually(async () => {
      const answer = await chat(c, caller.admin.secret);
      return answer.headers.get('x-ratelimit-limit-requests') === '20' ? answer : undefined;
    }, 15_000);
    expect(recovered.status).toBe(200);
    expect(c.process.output()).toContain('rate limits and abuse protection back on Redis');
    expect((await call(c, '/models')).status).toBe(200);
    const inspect = new Redis(redis.url);
    try {
      expect((await inspect.keys(`${stack.prefix}rl:*`)).length).toBeGreaterThan(0);
    } finally {
      inspect.disconnect();
    }
    // The restarted Redis kept nothing: the key starts a fresh window with its full limit.
    expect((await chat(c, caller.inference.secret)).headers.get('x-ratelimit-remaining-requests')).toBe('9');
  });
});

async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function newCaller(): Promise<TestCaller> {
  return stack.newCaller();
}
