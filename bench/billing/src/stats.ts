/** Nearest-rank percentile of an ascending-sorted sample. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export interface Latency {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarize(samples: number[]): Latency {
  const sorted = Float64Array.from(samples).sort();
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
  };
}

/** utime + stime of a process in milliseconds (Linux /proc; 100 ticks per second). */
export function cpuMs(pid: number, read: (file: string) => string): number {
  const text = read(`/proc/${pid}/stat`);
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
