/** Seconds a `retry-after` header asks for (delta-seconds or an HTTP date); 1 when absent or unreadable. */
export function retryAfterSeconds(header: string | ReadonlyArray<string> | null | undefined, now = Date.now()): number {
  const value = (typeof header === 'string' ? header : header?.[0])?.trim();
  if (!value) return 1;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, Math.ceil((date - now) / 1000)) : 1;
}
