import { percentile, perMinute } from './stats';

describe('bench stats', () => {
  it('takes nearest-rank percentiles', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 100)).toBe(5);
    expect(percentile([], 50)).toBe(0);
  });
  it('converts counts to images per minute', () => {
    expect(perMinute(10, 30_000)).toBe(20);
    expect(perMinute(1, 0)).toBe(0);
  });
});
