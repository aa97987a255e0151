import { z } from 'zod';
import { commonEnv, loadConfig, positiveInt, redisUrl } from '@svc/config';

export const gatewayConfigSchema = z.object({
  ...commonEnv,
  REDIS_URL: redisUrl,
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  SVC_CATALOG_PATH: z.string().optional(),
  /** Largest request body accepted, in bytes (413 above). */
  BODY_LIMIT_BYTES: positiveInt(40 * 1024 * 1024),
  /** How long a non-streaming inference call may take before 504. */
  INFERENCE_TIMEOUT_MS: positiveInt(300_000),
  /** How long /healthz waits for each service. */
  HEALTH_TIMEOUT_MS: positiveInt(1_500),
  /** A stream with no frame (not even a heartbeat) for this long is treated as a dead service. */
  STREAM_IDLE_TIMEOUT_MS: positiveInt(10_000),
  STREAM_WINDOW: positiveInt(64),
  /** Seconds an authenticated key stays cached; revocations are also pushed over NATS. */
  AUTH_CACHE_TTL_MS: positiveInt(5_000),
  AUTH_CACHE_MAX: positiveInt(100_000),
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
export const loadGatewayConfig = (): GatewayConfig => loadConfig('gateway', gatewayConfigSchema);
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
