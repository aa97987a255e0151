/** Nearest-rank percentile of `values` (milliseconds), 0 when empty. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Images per minute from `images` made in `ms` of wall time. */
export function perMinute(images: number, ms: number): number {
  return ms > 0 ? (images * 60_000) / ms : 0;
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
