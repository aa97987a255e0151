import { Bucket } from './limit-plan';
import { LocalLimiter, replicaShare } from './local-limiter';

const DAY = 86_400_000;
let now = 10 * DAY + 1_000;
const clock = () => now;
const bucket = (id: string, limits: Partial<Bucket['limits']>): Bucket => ({ scope: 'user', id, limits: { rpm: null, tpm: null, rpd: null, ...limits } });

describe('local fallback limiter', () => {
  it('keeps a sliding window of requests and says when the next slot frees', async () => {
    const limiter = new LocalLimiter({ windowMs: 1_000, maxBuckets: 10, clock });
    const b = [bucket('a', { rpm: 2 })];
    const first = now;
    expect((await limiter.admit(b, 'r1', 0)).denial).toBeUndefined();
    now += 400;
    expect((await limiter.admit(b, 'r2', 0)).denial).toBeUndefined();
    expect((await limiter.admit(b, 'r3', 0)).denial).toEqual({ bucket: 0, kind: 'RPM', retryAt: first + 1_000 });
    now = first + 1_000;
    expect((await limiter.admit(b, 'r4', 0)).states[0]).toEqual({ count: 2, used: 0, dayCount: 0, oldestAt: first + 400 });
  });

  it('reserves, corrects and releases tokens and day counts', async () => {
    const limiter = new LocalLimiter({ windowMs: 1_000, maxBuckets: 10, clock });
    const b = [bucket('t', { tpm: 100, rpd: 5 })];
    await limiter.admit(b, 'r1', 70);
    expect((await limiter.admit(b, 'r2', 40)).denial).toMatchObject({ kind: 'TPM' });
    expect((await limiter.admit(b, 'r3', 101)).denial).toEqual({ bucket: 0, kind: 'TOO_LARGE', retryAt: null });
    await limiter.settle(b, 'r1', 20);
    expect((await limiter.admit(b, 'r2', 40)).states[0]).toMatchObject({ count: 2, used: 60, dayCount: 2 });
    await limiter.settle(b, 'r2', null);
    expect((await limiter.peek(b)).states[0]).toMatchObject({ count: 1, used: 20, dayCount: 1 });
    now += DAY;
    expect((await limiter.peek(b)).states[0]).toMatchObject({ count: 0, used: 0, dayCount: 0 });
  });

  it('forgets the least recently used buckets beyond its bound', async () => {
    const limiter = new LocalLimiter({ windowMs: 60_000, maxBuckets: 2, clock });
    await limiter.admit([bucket('x', { rpm: 1 })], 'r1', 0);
    await limiter.admit([bucket('y', { rpm: 1 })], 'r2', 0);
    await limiter.admit([bucket('z', { rpm: 1 })], 'r3', 0);
    expect((await limiter.admit([bucket('x', { rpm: 1 })], 'r4', 0)).denial).toBeUndefined();
  });

  it('gives each replica its share of a limit, at least 1', () => {
    expect(replicaShare({ rpm: 20, tpm: 1_000_001, rpd: null }, 3)).toEqual({ rpm: 6, tpm: 333_333, rpd: null });
    expect(replicaShare({ rpm: 1, tpm: null, rpd: 2 }, 4)).toEqual({ rpm: 1, tpm: null, rpd: 1 });
  });
});
