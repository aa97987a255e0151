import { cpuMs, percentile, summarize } from './stats';

describe('bench statistics', () => {
  it('takes nearest-rank percentiles', () => {
    const sorted = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(percentile(sorted, 50)).toBe(5);
    expect(percentile(sorted, 90)).toBe(9);
    expect(percentile(sorted, 99)).toBe(10);
    expect(summarize([3, 1, 2])).toEqual({ count: 3, p50: 2, p90: 3, p99: 3, max: 3 });
  });

  it('reads CPU time from /proc/<pid>/stat even when the name has spaces', () => {
    const stat = '1234 (node (billing)) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 11 0 100 0 0';
    expect(cpuMs(1234, () => stat)).toBe(3000);
  });
});
