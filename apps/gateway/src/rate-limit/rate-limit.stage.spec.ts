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
function setup(config: Partial<GatewayConfig> = {}) {
  const local = new LocalLimiter({ windowMs: 60_000, maxBuckets: 100 });
  const limiter = {
    admit: async (buckets, member, cost) => ({ decision: await local.admit(buckets, member, cost), buckets, settle: (tokens: number | null) => local.settle(buckets, member, tokens) }),
  } as Pick<RateLimiter, 'admit'> as RateLimiter;
  const replyHeaders = new ReplyHeadersStore();
  const logged: unknown[] = [];
  const logger = { info: (o: unknown) => logged.push(o) } as unknown as Logger;
  const stage = new RateLimitStage(limiter, replyHeaders, new AdmissionGate(replyHeaders), { RATE_LIMITS_ENABLED: true, RATE_LIMIT_WINDOW_MS: 60_000, ...config } as GatewayConfig, logger);
  return { stage, replyHeaders, logged };
}

const model = { id: 'm', type: 'text', rateLimitTier: 'L', name: 'M' } as ModelDefinition;
let seq = 0;
const request = (over: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  requestId: `req${++seq}`,
  key: { id: 'k', accountId: 'a', apiKeyType: 'INFERENCE', expiresAt: null, consumptionLimits: { usd: null, diem: null }, limitPeriod: 'EPOCH', modelPrivacy: 'ALL' },
  model,
  worstCase: { kind: 'text', promptTokens: 100, completionTokens: 50 },
  ip: '127.0.0.1',
  ...over,
});

describe('rate-limit stage', () => {
  it('admits with headers, and refuses the request after the limit with a 429 whose headers wait for the reply', async () => {
    const { stage, replyHeaders, logged } = setup();
    const first = await stage.admit(request());
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit-requests': '20', 'x-ratelimit-remaining-requests': '19', 'x-ratelimit-remaining-tokens': String(500_000 - 150) });
    for (let i = 0; i < 19; i++) await stage.admit(request());
    const refused = request();
    const err = await stage.admit(refused).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe(ErrorCode.RateLimited);
    expect((err as DomainError).message).toMatch(/20 requests per minute on model m for your account/);
    expect(replyHeaders.take(refused.requestId)).toMatchObject({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-type': 'user' });
    expect(logged).toEqual([expect.objectContaining({ requestId: refused.requestId, type: 'RPM', scope: 'user', model: 'm' })]);
    expect(JSON.stringify(logged)).not.toMatch(/messages|content/);
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
