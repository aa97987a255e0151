import { Allowlist } from './allowlist';
import { DEFAULT_OUTBOUND_LIMITS, OutboundFetcher, OutboundLimits } from './outbound-fetch';

/** The variables a process that fetches user-given URLs reads (all optional; see .env.example). */
export interface OutboundEnv {
  OUTBOUND_ALLOWLIST?: string;
  OUTBOUND_MAX_BYTES?: string;
  OUTBOUND_TIMEOUT_MS?: string;
  OUTBOUND_MAX_REDIRECTS?: string;
}

/** A fetcher configured from the environment; throws naming the variable when a value is invalid. */
export function outboundFetcherFromEnv(env: OutboundEnv = process.env): OutboundFetcher {
  const int = (name: keyof OutboundEnv, fallback: number, min: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min} (got "${raw}")`);
    return n;
  };
  const limits: OutboundLimits = {
    maxBytes: int('OUTBOUND_MAX_BYTES', DEFAULT_OUTBOUND_LIMITS.maxBytes, 1),
    timeoutMs: int('OUTBOUND_TIMEOUT_MS', DEFAULT_OUTBOUND_LIMITS.timeoutMs, 1),
    maxRedirects: int('OUTBOUND_MAX_REDIRECTS', DEFAULT_OUTBOUND_LIMITS.maxRedirects, 0),
  };
  return new OutboundFetcher({ allowlist: Allowlist.parse(env.OUTBOUND_ALLOWLIST), limits });
}
