import Redis from 'ioredis';
import { DomainError, ErrorCode } from '@svc/errors';
import { PrivateRedis, startPrivateRedis } from '@svc/testing';
import { CreditWindow } from '../../src/crypto-rpc/credit-window';

/** The JSON-RPC proxy's 24-hour credit cap against a real redis-server of this test's own. */
const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2026, 10, 25, 12, 3, 0);

let server: PrivateRedis;
let redis: Redis;
let n = 0;
const account = () => `acct-${++n}`;
const refusal = (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e as DomainError);

beforeAll(async () => {
  server = await startPrivateRedis();
  redis = new Redis(server.url);
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('JSON-RPC credit cap (credits per rolling 24 hours)', () => {
  it('lets exactly the cap through when many calls race from several connections', async () => {
    const connections = Array.from({ length: 4 }, () => new Redis(server.url));
    try {
      const windows = connections.map((c) => new CreditWindow(c, 't:', 300, () => T0));
      const who = account();
      const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => windows[i % 4].reserve(who, 30)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as DomainError);
      expect(refused).toHaveLength(30);
      for (const err of refused) {
        expect(err.code).toBe(ErrorCode.RateLimited);
        expect(err.message).toMatch(/Credit cap reached: 300 credits per rolling 24 hours .*\(300 used, this request needs 30\)/);
        // the credits leave the window 24 h to 24 h 10 min after they were spent
        expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(24 * 3600);
        expect(err.retryAfterSeconds).toBeLessThanOrEqual(24 * 3600 + 600);
      }
    } finally {
      for (const c of connections) c.disconnect();
    }
  });

  it('counts what the answer cost: the unused part of a reservation, or all of a refused call, is given back', async () => {
    const window = new CreditWindow(redis, 't:', 100, () => T0);
    const who = account();
    const first = await window.reserve(who, 100);
    expect(await refusal(window.reserve(who, 1))).toBeInstanceOf(DomainError);
    await first.settle(40);
    const second = await window.reserve(who, 60);
    expect((await refusal(window.reserve(who, 1)))?.message).toMatch(/100 used/);
    await second.release();
    await window.reserve(who, 60);
    expect(await refusal(window.reserve(who, 1))).toBeInstanceOf(DomainError);
  });

  it('keeps accounts apart', async () => {
    const window = new CreditWindow(redis, 't:', 50, () => T0);
    await window.reserve(account(), 50);
    await expect(window.reserve(account(), 50)).resolves.toBeDefined();
  });

  it('is rolling: credits still count just before 24 hours have passed, and are free again when the refusal said', async () => {
    let now = T0;
    const window = new CreditWindow(redis, 't:', 100, () => now);
    const who = account();
    await window.reserve(who, 70);
    now = T0 + 12 * HOUR;
    await window.reserve(who, 30);
    now = T0 + 24 * HOUR - 1;
    const full = await refusal(window.reserve(who, 50));
    expect(full?.code).toBe(ErrorCode.RateLimited);
    // the first 70 credits must leave for 50 to fit; they leave within 10 minutes after 24 hours
    now += full!.retryAfterSeconds! * 1000;
    expect(now).toBeGreaterThanOrEqual(T0 + 24 * HOUR);
    expect(now).toBeLessThanOrEqual(T0 + 24 * HOUR + 10 * 60 * 1000 + 1000);
    await window.reserve(who, 50);
    // the 30 of the twelfth hour still count: 30 + 50 + 21 is over the cap
    expect(await refusal(window.reserve(who, 21))).toBeInstanceOf(DomainError);
    await window.reserve(who, 20);
  });

  it('refuses a call larger than the cap itself, with no time to retry', async () => {
    const window = new CreditWindow(redis, 't:', 100, () => T0);
    const err = await refusal(window.reserve(account(), 120));
    expect(err?.code).toBe(ErrorCode.RateLimited);
    expect(err?.message).toMatch(/needs 120 credits, more than the JSON-RPC proxy's cap of 100 credits per rolling 24 hours/);
    expect(err?.retryAfterSeconds).toBeUndefined();
  });

  it('with cap 0 counts nothing and writes nothing to Redis', async () => {
    const window = new CreditWindow(redis, 'zero:', 0, () => T0);
    const who = account();
    for (let i = 0; i < 5; i++) await window.reserve(who, 1_000_000_000);
    expect(await redis.keys('zero:*')).toEqual([]);
  });
});
