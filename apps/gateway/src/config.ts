import { isIP } from 'node:net';
import { z } from 'zod';
import { commonEnv, loadConfig, originList, positiveInt, redisUrl } from '@svc/config';
import { ERROR_STYLES } from '@svc/errors';

const flag = (fallback: 'true' | 'false') =>
  z
    .enum(['true', 'false'])
    .default(fallback)
    .transform((v) => v === 'true');

const limitValue = z.number().int().positive().optional();
/** `{"<model id>|*": {"rpm": n, "tpm": n, "rpd": n}}`: platform-wide limits per model (x-ratelimit-type `global`). */
const globalLimits = z
  .string()
  .transform((raw, ctx) => {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON, e.g. {"*":{"rpm":10000}}' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string().min(1), z.object({ rpm: limitValue, tpm: limitValue, rpd: limitValue }).strict()));

/** What request bodies in flight may hold by default: one body at the default limit, about 140 MiB of RSS at the peak (docs/configuration.md). */
export const DEFAULT_BODY_BUDGET_BYTES = 40 * 1024 * 1024;

/** Far above one client's need (the e2e bursts open 200 at once), far below a file-descriptor limit. */
export const DEFAULT_MAX_CONNECTIONS_PER_IP = 512;

/**
 * Slow-client limits of the HTTP server (docs/operations.md, "Slow and half-open clients"). They
 * bound receiving a request only: a response (an SSE stream) may run as long as it needs.
 */
const serverLimits = {
  /** Time to receive a request's headers, from the connection's first byte; 408 after it. */
  REQUEST_HEADERS_TIMEOUT_MS: positiveInt(10_000),
  /** Time to receive a whole request, headers and body (a body shorter than its Content-Length); 408 after it. */
  REQUEST_RECEIVE_TIMEOUT_MS: positiveInt(60_000),
  /** An idle keep-alive connection is closed after this long. Behind a load balancer, set it above the balancer's idle timeout. */
  KEEP_ALIVE_TIMEOUT_MS: positiveInt(72_000),
  /**
   * Open connections one client address may hold; more are closed at once. 0: no cap. Unset: 512,
   * or 0 with TRUST_PROXY=true (every connection then comes from the proxy: cap at the proxy).
   */
  MAX_CONNECTIONS_PER_IP: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).optional()),
};

const gatewayEnvSchema = z.object({
  ...commonEnv,
  REDIS_URL: redisUrl,
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Gateway processes behind PORT (node:cluster; docs/operations.md, "Gateway workers"): more than one only where there are cores to spare. */
  GATEWAY_WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  HOST: z.string().default('0.0.0.0'),
  SVC_CATALOG_PATH: z.string().optional(),
  /** Largest request body accepted, in bytes (413 above). */
  BODY_LIMIT_BYTES: positiveInt(40 * 1024 * 1024),
  /**
   * Bytes of request bodies all requests in flight may hold at once in this process (503 with
   * retry-after past it; docs/configuration.md). Unset: 40 MiB, or BODY_LIMIT_BYTES when larger.
   */
  BODY_BUDGET_BYTES: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().positive().optional()),
  /**
   * How long a request refused for credit waits while requests of its account run on this gateway
   * (each that ends may return part of its hold) before its 402; 0 answers at once
   * (docs/billing.md, "Exact at the margin").
   */
  BILLING_MARGIN_WAIT_MS: z.coerce.number().int().min(0).default(30_000),
  /** How long a non-streaming inference call may take before 504. */
  INFERENCE_TIMEOUT_MS: positiveInt(300_000),
  /** How long /healthz waits for each service. */
  HEALTH_TIMEOUT_MS: positiveInt(1_500),
  /** A stream with no frame (not even a heartbeat) for this long is treated as a dead service. */
  STREAM_IDLE_TIMEOUT_MS: positiveInt(3_000),
  STREAM_WINDOW: positiveInt(64),
  /** Seconds an authenticated key stays cached; revocations are also pushed over NATS. */
  AUTH_CACHE_TTL_MS: positiveInt(5_000),
  AUTH_CACHE_MAX: positiveInt(100_000),
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),

  /** Prepended to every Redis key the gateway writes; replicas of one deployment must share it. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{0,64}$/, 'letters, digits and : _ . - only, at most 64')
    .default('svc:'),
  /** Requests/tokens per minute and per day (docs/rate-limits.md). `false` only for benchmarks of everything else. */
  RATE_LIMITS_ENABLED: flag('true'),
  /** Length of the sliding window of RPM/TPM. The spec's limits are per minute; shorter only for tests. */
  RATE_LIMIT_WINDOW_MS: positiveInt(60_000),
  RATE_LIMIT_GLOBAL_JSON: z.preprocess((v) => (v === '' ? undefined : v), globalLimits.optional()),
  /** A rate-limit call to Redis slower than this counts as Redis being down (local fallback). */
  RATE_LIMIT_REDIS_TIMEOUT_MS: positiveInt(250),
  /**
   * Far from its limits an account's requests are admitted from a lease of its window held by
   * this replica (docs/rate-limits.md, "Leases"): at most this many requests per lease...
   */
  RATE_LIMIT_LEASE_MAX: z.coerce.number().int().min(0).max(10_000).default(64),
  /** ...for at most this long (ms). 0 for either turns leases off; off too where the window is shorter than 20 leases. */
  RATE_LIMIT_LEASE_MS: z.coerce.number().int().min(0).max(10_000).default(250),
  /** While Redis is down each replica admits limit / this (set it to the replica count). */
  RATE_LIMIT_FALLBACK_REPLICAS: positiveInt(1),
  /** Buckets (account or key, per model) the local fallback keeps at most; least recently used go first. */
  RATE_LIMIT_FALLBACK_MAX_BUCKETS: positiveInt(10_000),
  /** Hits kept per account for GET /api_keys/rate_limits/log. */
  RATE_LIMIT_LOG_SIZE: positiveInt(50),
  /** The spec's abuse block: more than ABUSE_MAX_FAILURES non-2xx answers within ABUSE_WINDOW_MS block the caller for ABUSE_BLOCK_MS. */
  ABUSE_PROTECTION_ENABLED: flag('true'),
  ABUSE_MAX_FAILURES: positiveInt(20),
  ABUSE_WINDOW_MS: positiveInt(30_000),
  ABUSE_BLOCK_MS: positiveInt(30_000),
  /** Browser origins that may call the API (CORS; docs/configuration.md): empty (default) for none, `*`, or a comma list. */
  CORS_ALLOWED_ORIGINS: originList,
  /** `GET /metrics` (Prometheus, no key) and the counting behind it (docs/operations.md, "Metrics"). */
  METRICS_ENABLED: flag('true'),
  /** Credits an account may spend on the JSON-RPC proxy per rolling 24 hours (the reference's cap; 429 over it). 0: no cap. */
  CRYPTO_RPC_CREDITS_PER_DAY: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(10_000_000)),
  /** Error bodies: the spec's `{error: "..."}` (standard), or OpenAI's `{error: {message, type, param, code}}` (docs/errors.md). */
  ERROR_STYLE: z.enum(ERROR_STYLES).default('standard'),
  /** `x-svc-timestamp` (ISO 8601, when the request arrived) on every response. */
  SVC_TIMESTAMP_HEADER: flag('false'),
  /** `x-svc-host-name` on error responses: a name the operator chooses for this replica (never derived from the machine). */
  SVC_HOST_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits and . _ - only, at most 64')
    .refine((v) => isIP(v) === 0, 'a name, not an IP address')
    .optional(),
  ...serverLimits,
});

export const gatewayConfigSchema = gatewayEnvSchema
  .refine((c) => c.REQUEST_HEADERS_TIMEOUT_MS <= c.REQUEST_RECEIVE_TIMEOUT_MS, {
    path: ['REQUEST_HEADERS_TIMEOUT_MS'],
    message: 'must not be larger than REQUEST_RECEIVE_TIMEOUT_MS (the headers are part of the request)',
  })
  .refine((c) => c.BODY_BUDGET_BYTES === undefined || c.BODY_BUDGET_BYTES >= c.BODY_LIMIT_BYTES, {
    path: ['BODY_BUDGET_BYTES'],
    message: 'must not be smaller than BODY_LIMIT_BYTES (a body at the limit could never be received)',
  })
  .transform((c) => ({
    ...c,
    MAX_CONNECTIONS_PER_IP: c.MAX_CONNECTIONS_PER_IP ?? (c.TRUST_PROXY ? 0 : DEFAULT_MAX_CONNECTIONS_PER_IP),
    BODY_BUDGET_BYTES: c.BODY_BUDGET_BYTES ?? Math.max(c.BODY_LIMIT_BYTES, DEFAULT_BODY_BUDGET_BYTES),
  }));
export type GatewayConfig = z.output<typeof gatewayConfigSchema>;
export const loadGatewayConfig = (): GatewayConfig => loadConfig('gateway', gatewayConfigSchema);
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
