import { percentile, Samples, summarize } from './percentiles';

describe('percentiles', () => {
  it('uses the nearest rank', () => {
    const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it('summarizes unsorted samples numerically, not as strings', () => {
    expect(summarize([10, 9, 100, 2])).toEqual({ count: 4, p50: 9, p99: 100, mean: 30.25, max: 100 });
  });

  it('grows a sample buffer past its first capacity', () => {
    const samples = new Samples();
    for (let i = 0; i < 5000; i++) samples.push(i);
    expect(samples.length).toBe(5000);
    expect(samples.values()[4999]).toBe(4999);
  });
});
