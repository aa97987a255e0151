import path from 'node:path';

/** The bench's own databases (created and migrated by the platform's start and the CLIs). */
export const BENCH_DATABASES = { keys: 'svc_bench_compare_keys', billing: 'svc_bench_compare_billing', chat: 'svc_bench_compare_chat' } as const;

export interface PlatformEnvInput {
  root: string;
  port: number;
  natsUrl: string;
  redisUrl: string;
  /** The fake upstream's OpenAI base URL (with /v1). */
  upstreamBaseUrl: string;
  /** Postgres server URL without a database, e.g. postgresql://postgres@127.0.0.1:5432. */
  pgUrl: string;
  startTimeoutSeconds: number;
}

export function databaseUrls(pgUrl: string): { KEYS_DATABASE_URL: string; BILLING_DATABASE_URL: string; CHAT_DATABASE_URL: string } {
  const base = pgUrl.replace(/\/+$/, '');
  return {
    KEYS_DATABASE_URL: `${base}/${BENCH_DATABASES.keys}`,
    BILLING_DATABASE_URL: `${base}/${BENCH_DATABASES.billing}`,
    CHAT_DATABASE_URL: `${base}/${BENCH_DATABASES.chat}`,
  };
}

/**
 * The environment of `node tools/start/start.js` for the comparison: everything a user gets (auth,
 * rate limits, abuse protection, billing, the NATS hop), switched on explicitly so that a caller's
 * shell cannot turn it off, with the bench's own databases, NATS and Redis.
 */
export function platformEnv(input: PlatformEnvInput, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...base,
    PORT: String(input.port),
    HOST: '127.0.0.1',
    NATS_URL: input.natsUrl,
    REDIS_URL: input.redisUrl,
    ...databaseUrls(input.pgUrl),
    // One model, bench-upstream, proxied to BENCH_UPSTREAM_URL and priced like the default model.
    SVC_CATALOG_PATH: path.join(input.root, 'bench/gateway-overhead/catalog.yaml'),
    BENCH_UPSTREAM_URL: input.upstreamBaseUrl,
    RATE_LIMITS_ENABLED: 'true',
    ABUSE_PROTECTION_ENABLED: 'true',
    LOG_LEVEL: 'warn',
    // `npm run bench:compare` has just built; the platform must run what this benchmark was built with.
    SVC_SKIP_BUILD: '1',
    START_TIMEOUT_MS: String(input.startTimeoutSeconds * 1000),
  };
}
