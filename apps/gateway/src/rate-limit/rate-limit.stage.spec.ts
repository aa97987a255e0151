import { ModelDefinition } from '@svc/catalog';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { AdmissionRequest } from '../admission/admission.types';
import { GatewayConfig } from '../config';
import { AdmissionGate } from './admission-gate';
import { LocalLimiter } from './local-limiter';
import { RateLimiter } from './rate-limiter';
import { RateLimitStage, tokensUsed } from './rate-limit.stage';
import { ReplyHeadersStore } from './reply-headers.store';

/** The stage over the in-memory limiter (the Redis scripts are covered by integration tests). */
function setup(config: Partial<GatewayConfig> = {}, blocks = new Map<string, number>()) {
  const local = new LocalLimiter({ windowMs: 60_000, maxBuckets: 100 });
  // Like the Redis limiter: a block key passed along is read first, and a set block counts nothing.
  const limiter = {
    admit: async (buckets, member, cost, _hit, blockKey) => {
      const settle = (tokens: number | null) => local.settle(buckets, member, tokens);
      const liftAt = blockKey === undefined ? undefined : (blocks.get(blockKey) ?? null);
      if (typeof liftAt === 'number') return { decision: { now: 0, states: [], blockedUntil: liftAt }, buckets, settle };
      const decision = await local.admit(buckets, member, cost);
      return { decision: liftAt === undefined ? decision : { ...decision, blockedUntil: liftAt }, buckets, settle };
    },
  } as Pick<RateLimiter, 'admit'> as RateLimiter;
  const replyHeaders = new ReplyHeadersStore();
  const logged: unknown[] = [];
  const logger = { info: (o: unknown) => logged.push(o) } as unknown as Logger;
  const gate = new AdmissionGate(replyHeaders);
  const stage = new RateLimitStage(
    limiter,
    replyHeaders,
    gate,
    { RATE_LIMITS_ENABLED: true, RATE_LIMIT_WINDOW_MS: 60_000, ...config } as GatewayConfig,
    logger,
  );
  return { stage, replyHeaders, logged, gate };
}

const refusal = { refusal: new DomainError(ErrorCode.RateLimited, 'blocked'), headers: { 'retry-after': '30' } };

const model = { id: 'm', type: 'text', rateLimitTier: 'L', name: 'M' } as ModelDefinition;
let seq = 0;
const request = (over: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  requestId: `req${++seq}`,
  key: {
    id: 'k',
    accountId: 'a',
    apiKeyType: 'INFERENCE',
    expiresAt: null,
    consumptionLimits: { usd: null, diem: null },
    limitPeriod: 'EPOCH',
    modelPrivacy: 'ALL',
  },
  model,
  worstCase: { kind: 'text', promptTokens: 100, completionTokens: 50 },
  ip: '127.0.0.1',
  ...over,
});

describe('rate-limit stage', () => {
  it('admits with headers, and refuses the request after the limit with a 429 whose headers wait for the reply', async () => {
    const { stage, replyHeaders, logged } = setup();
    const first = await stage.admit(request());
    expect(first.headers).toMatchObject({
      'x-ratelimit-limit-requests': '20',
      'x-ratelimit-remaining-requests': '19',
      'x-ratelimit-remaining-tokens': String(500_000 - 150),
    });
    for (let i = 0; i < 19; i++) await stage.admit(request());
    const refused = request();
    const err = await stage.admit(refused).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe(ErrorCode.RateLimited);
    expect((err as DomainError).message).toMatch(/20 requests per minute on model m for your account/);
    // retry-after: when the oldest request leaves the 60 s window (all 20 were counted just now).
    expect((err as DomainError).retryAfterSeconds).toBeGreaterThan(59);
    expect((err as DomainError).retryAfterSeconds).toBeLessThanOrEqual(60);
    // OpenAI's 429 type (ERROR_STYLE=openai): a request limit.
    expect((err as DomainError).limitedOn).toBe('requests');
    expect(replyHeaders.take(refused.requestId)).toMatchObject({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-type': 'user' });
    expect(logged).toEqual([expect.objectContaining({ requestId: refused.requestId, type: 'RPM', scope: 'user', model: 'm' })]);
    expect(JSON.stringify(logged)).not.toMatch(/messages|content/);
  });

  it('tells the client not to retry a request larger than the token limit (x-should-retry), with retry-after a window', async () => {
    const { stage, replyHeaders } = setup();
    const huge = request({ worstCase: { kind: 'text', promptTokens: 400_000, completionTokens: 200_000 } });
    await expect(stage.admit(huge)).rejects.toMatchObject({ code: ErrorCode.RateLimited, retryAfterSeconds: 60, limitedOn: 'tokens' });
    expect(replyHeaders.take(huge.requestId)).toMatchObject({ 'x-should-retry': 'false', 'x-ratelimit-limit-tokens': '500000' });
  });

  it('corrects tokens to actual usage on settlement and releases a request that produced nothing', async () => {
    const { stage } = setup();
    const one = await stage.admit(request());
    await one.settle({ promptTokens: 10, completionTokens: 5 });
    const two = await stage.admit(request());
    expect(two.headers['x-ratelimit-remaining-tokens']).toBe(String(500_000 - 15 - 150));
    await two.settle(null);
    const three = await stage.admit(request());
    expect(three.headers['x-ratelimit-remaining-requests']).toBe('18');
  });

  it('answers a folded caller check from its own Redis call: a block refuses and counts nothing', async () => {
    const blocks = new Map([['block:k', 123]]);
    const { stage, gate, replyHeaders } = setup({}, blocks);
    const run = jest.fn(async () => null);
    const blocked = request();
    gate.defer(blocked.requestId, { blockKey: 'block:k', leasable: true, decide: (liftAt) => (liftAt === null ? null : refusal), run });
    await expect(stage.admit(blocked)).rejects.toMatchObject({ code: ErrorCode.RateLimited, message: 'blocked' });
    expect(replyHeaders.take(blocked.requestId)).toEqual({ 'retry-after': '30' });
    blocks.clear();
    const free = request();
    gate.defer(free.requestId, { blockKey: 'block:k', leasable: true, decide: (liftAt) => (liftAt === null ? null : refusal), run });
    expect((await stage.admit(free)).headers['x-ratelimit-remaining-requests']).toBe('19');
    expect(run).not.toHaveBeenCalled();
  });

  it('runs the full caller check where the read cannot decide, releasing what was counted when it refuses', async () => {
    const { stage, gate } = setup({}, new Map());
    const undecided = request();
    gate.defer(undecided.requestId, { blockKey: 'block:k', leasable: true, decide: () => undefined, run: async () => refusal });
    await expect(stage.admit(undecided)).rejects.toMatchObject({ message: 'blocked' });
    const next = request();
    gate.defer(next.requestId, { blockKey: 'block:k', leasable: true, decide: () => undefined, run: async () => null });
    expect((await stage.admit(next)).headers['x-ratelimit-remaining-requests']).toBe('19');
  });

  it('awaits a caller check started before authentication, with rate limits on or off', async () => {
    for (const enabled of [true, false]) {
      const { stage, gate } = setup({ RATE_LIMITS_ENABLED: enabled });
      const blocked = request();
      gate.defer(blocked.requestId, Promise.resolve(refusal));
      await expect(stage.admit(blocked)).rejects.toMatchObject({ message: 'blocked' });
    }
  });

  it('counts nothing when rate limits are disabled', async () => {
    const { stage } = setup({ RATE_LIMITS_ENABLED: false });
    expect((await stage.admit(request())).headers).toEqual({});
  });

  it('counts a cut stream with the prompt bound when the stream could not report the prompt', () => {
    const estimate = { kind: 'text' as const, promptTokens: 40, completionTokens: 100 };
    expect(tokensUsed({ promptTokens: 12, completionTokens: 7 }, estimate)).toBe(19);
    expect(tokensUsed({ promptTokens: 0, completionTokens: 7, cut: true }, estimate)).toBe(47);
    expect(tokensUsed({ promptTokens: 12, completionTokens: 7, cut: true }, estimate)).toBe(19);
  });
});
