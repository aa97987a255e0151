import { platformEnv } from './platform-env';

describe('platform environment', () => {
  const input = {
    root: '/repo',
    port: 4000,
    natsUrl: 'nats://127.0.0.1:4223',
    redisUrl: 'redis://127.0.0.1:6380',
    upstreamBaseUrl: 'http://127.0.0.1:18080/v1',
    pgUrl: 'postgresql://postgres@127.0.0.1:5432/',
    startTimeoutSeconds: 600,
  };

  it("turns rate limits and abuse protection on even when the caller's shell turned them off", () => {
    const env = platformEnv(input, { RATE_LIMITS_ENABLED: 'false', ABUSE_PROTECTION_ENABLED: 'false', PATH: '/bin' });
    expect(env).toMatchObject({ RATE_LIMITS_ENABLED: 'true', ABUSE_PROTECTION_ENABLED: 'true', PATH: '/bin' });
  });

  it("uses the bench's own databases, NATS, Redis and catalog", () => {
    expect(platformEnv(input, {})).toMatchObject({
      PORT: '4000',
      NATS_URL: 'nats://127.0.0.1:4223',
      REDIS_URL: 'redis://127.0.0.1:6380',
      KEYS_DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/svc_bench_compare_keys',
      BILLING_DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/svc_bench_compare_billing',
      CHAT_DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/svc_bench_compare_chat',
      SVC_CATALOG_PATH: '/repo/bench/gateway-overhead/catalog.yaml',
      BENCH_UPSTREAM_URL: 'http://127.0.0.1:18080/v1',
    });
  });
});
