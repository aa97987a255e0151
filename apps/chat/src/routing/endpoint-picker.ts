import { createHash } from 'node:crypto';

export interface Pickable {
  /** Stable label, e.g. `endpoint-2` (never a hostname: it may reach logs). */
  readonly id: string;
  readonly outstanding: number;
  /** The circuit lets a request through (closed, or half-open with its trial slot free). */
  readonly available: boolean;
  /** The last health check passed (or none ran yet). */
  readonly healthy: boolean;
}

/**
 * Chooses an endpoint whose circuit lets requests through, preferring ones not yet tried for this
 * request (`exclude`) and ones whose health check passes:
 * - with a `prompt_cache_key`: rendezvous (highest-random-weight) hashing, so a key keeps going
 *   to the same endpoint and only the keys of an endpoint that drops out move;
 * - otherwise the one with the fewest outstanding requests (ties: the first listed).
 * Undefined when every circuit is open. A failing health check alone never refuses a request.
 */
export function pickEndpoint<E extends Pickable>(
  endpoints: readonly E[],
  cacheKey: string | undefined,
  exclude: ReadonlySet<string> = new Set(),
): E | undefined {
  const open = endpoints.filter((e) => e.available);
  if (open.length === 0) return undefined;
  const fresh = open.filter((e) => !exclude.has(e.id));
  const untried = fresh.length ? fresh : open;
  const healthy = untried.filter((e) => e.healthy);
  const pool = healthy.length ? healthy : untried;
  if (cacheKey !== undefined) return maxBy(pool, (e) => rendezvousScore(cacheKey, e.id));
  return maxBy(pool, (e) => -e.outstanding);
}

export function rendezvousScore(key: string, endpointId: string): number {
  return createHash('sha256').update(key).update('\0').update(endpointId).digest().readUInt32BE(0);
}

function maxBy<T>(items: readonly T[], score: (item: T) => number): T {
  let best = items[0];
  let bestScore = score(best);
  for (const item of items.slice(1)) {
    const s = score(item);
    if (s > bestScore) {
      best = item;
      bestScore = s;
    }
  }
  return best;
}
