import Redis from 'ioredis';
import { Bucket } from '../../src/rate-limit/limit-plan';
import { HitInfo } from '../../src/rate-limit/limiter.types';
import { hitLogKey, RedisLimiter } from '../../src/rate-limit/redis-limiter';
import { PrivateRedis, startPrivateRedis } from '@svc/testing';

/** The Lua scripts against a real redis-server of this test's own (it flushes scripts). */
const WINDOW_MS = 1_000;
const PREFIX = 't:';
const hit: HitInfo = { accountId: 'acct', apiKeyId: 'key-1', modelId: 'm', apiTier: 'paid' };

let server: PrivateRedis;
let redis: Redis;
let limiter: RedisLimiter;
let n = 0;

const bucket = (limits: Partial<Bucket['limits']>, scope: Bucket['scope'] = 'user'): Bucket => ({
  scope,
  id: `b${++n}`,
  limits: { rpm: null, tpm: null, rpd: null, ...limits },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  server = await startPrivateRedis();
  redis = new Redis(server.url);
  limiter = new RedisLimiter(redis, { prefix: PREFIX, windowMs: WINDOW_MS, logSize: 3 });
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('rate-limit scripts', () => {
  it('admits exactly the limit under heavy concurrency from several connections', async () => {
    const b = bucket({ rpm: 50 });
    const connections = Array.from({ length: 4 }, () => new Redis(server.url));
    const limiters = connections.map((c) => new RedisLimiter(c, { prefix: PREFIX, windowMs: 60_000, logSize: 50 }));
    try {
      const decisions = await Promise.all(Array.from({ length: 400 }, (_, i) => limiters[i % 4].admit([b], `r${i}`, 0, hit)));
      expect(decisions.filter((d) => !d.denial)).toHaveLength(50);
    } finally {
      for (const c of connections) c.disconnect();
    }
  });

  it('refuses past the limit with the time the oldest request leaves the window, then admits again', async () => {
    const b = bucket({ rpm: 2 });
    const first = await limiter.admit([b], 'a', 0, hit);
    expect(first.states[0]).toEqual({ count: 1, used: 0, dayCount: 0, oldestAt: first.now });
    const second = await limiter.admit([b], 'b', 0, hit);
    const refused = await limiter.admit([b], 'c', 0, hit);
    expect(refused.denial).toEqual({ bucket: 0, kind: 'RPM', retryAt: first.now + WINDOW_MS });
    expect(refused.states[0].count).toBe(2);
    await sleep(refused.denial!.retryAt! - refused.now + 20);
    const again = await limiter.admit([b], 'd', 0, hit);
    expect(again.denial).toBeUndefined();
    // 'a' has left the window; 'b' too when this machine was slow enough.
    expect(again.states[0].count).toBe(again.now - second.now < WINDOW_MS ? 2 : 1);
  });

  it('counts a request in every bucket only when all of them admit it', async () => {
    const key = bucket({ rpm: 1 }, 'api_key');
    const user = bucket({ rpm: 5 });
    expect((await limiter.admit([key, user], 'a', 0, hit)).denial).toBeUndefined();
    const refused = await limiter.admit([key, user], 'b', 0, hit);
    expect(refused.denial?.bucket).toBe(0);
    expect(refused.states.map((s) => s.count)).toEqual([1, 1]);
  });

  it('reserves tokens, corrects them on settlement, and releases a request that produced nothing', async () => {
    const b = bucket({ rpm: 10, tpm: 100, rpd: 10 });
    expect((await limiter.admit([b], 'a', 60, hit)).states[0]).toMatchObject({ count: 1, used: 60, dayCount: 1 });
    const refused = await limiter.admit([b], 'b', 60, hit);
    expect(refused.denial).toMatchObject({ kind: 'TPM' });
    await limiter.settle([b], 'a', 25);
    expect((await limiter.peek([b])).states[0]).toMatchObject({ count: 1, used: 25, dayCount: 1 });
    expect((await limiter.admit([b], 'b', 60, hit)).states[0]).toMatchObject({ count: 2, used: 85, dayCount: 2 });
    await limiter.settle([b], 'b', null);
    expect((await limiter.peek([b])).states[0]).toMatchObject({ count: 1, used: 25, dayCount: 1 });
    // Twice, or after the request left the window: nothing changes.
    await limiter.settle([b], 'b', null);
    expect((await limiter.peek([b])).states[0]).toMatchObject({ count: 1, used: 25 });
    await sleep(WINDOW_MS + 20);
    await limiter.settle([b], 'a', 99);
    expect((await limiter.peek([b])).states[0]).toEqual({ count: 0, used: 0, dayCount: 1, oldestAt: null });
  });

  it('says when a refused token reservation fits again, and refuses one larger than the limit outright', async () => {
    const b = bucket({ tpm: 100 });
    const first = await limiter.admit([b], 'a', 40, hit);
    await sleep(30);
    const second = await limiter.admit([b], 'b', 40, hit);
    // 50 more need 30 freed: the first request's 40 are enough.
    expect((await limiter.admit([b], 'c', 50, hit)).denial).toEqual({ bucket: 0, kind: 'TPM', retryAt: first.now + WINDOW_MS });
    // 90 more need 70 freed: both must leave.
    expect((await limiter.admit([b], 'd', 90, hit)).denial).toEqual({ bucket: 0, kind: 'TPM', retryAt: second.now + WINDOW_MS });
    expect((await limiter.admit([b], 'e', 101, hit)).denial).toEqual({ bucket: 0, kind: 'TOO_LARGE', retryAt: null });
  });

  it('limits requests per UTC day, resetting at midnight', async () => {
    const b = bucket({ rpd: 1 });
    const first = await limiter.admit([b], 'a', 0, hit);
    const refused = await limiter.admit([b], 'b', 0, hit);
    expect(refused.denial).toEqual({ bucket: 0, kind: 'RPD', retryAt: (Math.floor(first.now / 86_400_000) + 1) * 86_400_000 });
  });

  it('keeps the last hits per account, newest first, capped', async () => {
    const b = bucket({ rpm: 1 });
    await limiter.admit([b], 'a', 0, hit);
    for (let i = 0; i < 5; i++) await limiter.admit([b], `x${i}`, 0, { ...hit, modelId: `m${i}` });
    const log = (await redis.lrange(hitLogKey(PREFIX, 'acct'), 0, -1)).map((l) => JSON.parse(l));
    expect(log.map((e) => e.m)).toEqual(['m4', 'm3', 'm2']);
    expect(log[0]).toEqual({ k: 'key-1', m: 'm4', t: 'paid', y: 'RPM', at: expect.any(Number) });
    expect(await redis.ttl(hitLogKey(PREFIX, 'acct'))).toBeGreaterThan(0);
  });

  it('reads an abuse block key in the same call: a set block counts nothing, no block admits as usual', async () => {
    const b = bucket({ rpm: 5 });
    const block = `${PREFIX}ab:b:key:test`;
    const free = await limiter.admit([b], 'a', 0, hit, block);
    expect(free.blockedUntil).toBeNull();
    expect(free.states[0].count).toBe(1);
    await redis.set(block, String(free.now + 30_000), 'PX', 30_000);
    const blocked = await limiter.admit([b], 'b', 0, hit, block);
    expect(blocked).toEqual({ now: expect.any(Number), states: [], blockedUntil: free.now + 30_000 });
    await redis.del(block);
    expect((await limiter.admit([b], 'c', 0, hit, block)).states[0].count).toBe(2);
    expect((await limiter.admit([b], 'd', 0, hit)).blockedUntil).toBeUndefined();
  });

  it('loads its scripts again when Redis lost them', async () => {
    await redis.script('FLUSH');
    expect((await limiter.admit([bucket({ rpm: 1 })], 'a', 0, hit)).denial).toBeUndefined();
  });

  it('lets idle counters expire', async () => {
    const b = bucket({ rpm: 5, tpm: 100 });
    await limiter.admit([b], 'a', 10, hit);
    const ttl = await redis.pttl(`${PREFIX}rl:${b.id}:r`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(WINDOW_MS + 1_000);
  });
});
