import { percentile, summarize } from './stats';

describe('bench stats', () => {
  it('takes nearest-rank percentiles', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(samples, 50)).toBe(50);
    expect(percentile(samples, 99)).toBe(99);
    expect(percentile(samples, 100)).toBe(100);
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
    expect(summarize([1, 2, 3, 4])).toEqual({ count: 4, p50: 2, p90: 4, p99: 4, mean: 2.5 });
  });
});
