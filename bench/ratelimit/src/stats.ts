/** Nearest-rank percentile of unsorted samples (0 < p <= 100); NaN for none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export interface Summary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}

export function summarize(samples: readonly number[]): Summary {
  const mean = samples.reduce((a, b) => a + b, 0) / (samples.length || 1);
  return { count: samples.length, p50: percentile(samples, 50), p90: percentile(samples, 90), p99: percentile(samples, 99), mean };
}

export const ms = (value: number, digits = 3): string => (Number.isFinite(value) ? `${value.toFixed(digits)} ms` : 'n/a');
