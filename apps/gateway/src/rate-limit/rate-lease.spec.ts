import { Bucket } from './limit-plan';
import { RateLease } from './rate-lease';

const buckets: Bucket[] = [
  { scope: 'api_key', id: 'k:1:m', limits: { rpm: 1000, tpm: null, rpd: 5000 } },
  { scope: 'user', id: 'u:1:m', limits: { rpm: 2000, tpm: 100_000, rpd: null } },
];
// The grant: Redis time 1,000,000 when this process's clock read 500; the granting request counted.
const grantStates = [
  { count: 10, used: 0, dayCount: 40, oldestAt: 999_000 },
  { count: 20, used: 3_000, dayCount: 0, oldestAt: 998_000 },
];
const lease = (slots = 3, tokens: number | null = 1_000) => new RateLease(buckets, '~abc1', slots, tokens, 1_000_000, 500, 750, grantStates, [true, false]);

describe('RateLease', () => {
  it('admits into its slots, counting down as the per-request path would', () => {
    const l = lease();
    const first = l.take(300, 510);
    expect(first?.slot).toBe(1);
    expect(first?.decision).toEqual({
      now: 1_000_010,
      states: [
        { count: 11, used: 300, dayCount: 41, oldestAt: 999_000 },
        { count: 21, used: 3_300, dayCount: 0, oldestAt: 998_000 },
      ],
    });
    expect(l.take(300, 520)?.decision.states[1]).toEqual({ count: 22, used: 3_600, dayCount: 0, oldestAt: 998_000 });
  });

  it('refuses what does not fit: no slot, not enough tokens, expired, closing', () => {
    const tokens = lease(3, 1_000);
    expect(tokens.take(600, 510)).not.toBeNull();
    expect(tokens.take(600, 511)).toBeNull(); // 1,200 > 1,000 tokens
    expect(tokens.take(400, 512)?.slot).toBe(2);

    const slots = lease(2, null);
    slots.take(10_000, 510);
    slots.take(10_000, 510);
    expect(slots.exhausted).toBe(true);
    expect(slots.take(1, 510)).toBeNull();

    expect(lease().take(1, 750)).toBeNull();
    const closing = lease();
    closing.closing = Promise.resolve();
    expect(closing.take(1, 510)).toBeNull();
  });

  it('frees tokens a settled request did not use, and hands the close each slot on Redis time', () => {
    const l = lease(4, 1_000);
    l.take(600, 510);
    l.take(300, 530);
    l.take(100, 540);
    expect(l.take(200, 541)).toBeNull();
    expect(l.settle(1, 150)).toBe(true); // used 150 of its 600
    expect(l.settle(3, null)).toBe(true); // released: produced nothing
    expect(l.take(200, 545)?.slot).toBe(4);
    expect(l.closedSlots()).toEqual([{ at: 1_000_010, tokens: 150 }, { at: 1_000_030, tokens: 300 }, null, { at: 1_000_045, tokens: 200 }]);
    l.closing = Promise.resolve();
    expect(l.settle(2, 250)).toBe(false); // after the close it goes to Redis
  });

  it('gives back every slot it did not use', () => {
    const l = lease(3, null);
    l.take(0, 600);
    expect(l.closedSlots()).toEqual([{ at: 1_000_100, tokens: 0 }, null, null]);
  });
});
