import { ConfigError, loadConfig } from '@svc/config';
import { gatewayConfigSchema } from './config';

const load = (env: Record<string, string>) => loadConfig('gateway', gatewayConfigSchema, env);

describe('gateway config: rate limits and abuse protection', () => {
  it('defaults to the spec: per-minute windows, 20 failures in 30 s block for 30 s, limits on', () => {
    expect(load({})).toMatchObject({
      REDIS_KEY_PREFIX: 'svc:',
      RATE_LIMITS_ENABLED: true,
      RATE_LIMIT_WINDOW_MS: 60_000,
      RATE_LIMIT_FALLBACK_REPLICAS: 1,
      RATE_LIMIT_LOG_SIZE: 50,
      ABUSE_PROTECTION_ENABLED: true,
      ABUSE_MAX_FAILURES: 20,
      ABUSE_WINDOW_MS: 30_000,
      ABUSE_BLOCK_MS: 30_000,
    });
    expect(load({}).RATE_LIMIT_GLOBAL_JSON).toBeUndefined();
    expect(load({ RATE_LIMIT_GLOBAL_JSON: '' }).RATE_LIMIT_GLOBAL_JSON).toBeUndefined();
  });

  it('parses global limits per model and rejects malformed ones by name', () => {
    expect(load({ RATE_LIMIT_GLOBAL_JSON: '{"*":{"rpm":10000},"big":{"tpm":5000000,"rpd":100}}' }).RATE_LIMIT_GLOBAL_JSON).toEqual({
      '*': { rpm: 10_000 },
      big: { tpm: 5_000_000, rpd: 100 },
    });
    expect(() => load({ RATE_LIMIT_GLOBAL_JSON: '{"*":{"rpm":0}}' })).toThrow(ConfigError);
    expect(() => load({ RATE_LIMIT_GLOBAL_JSON: '{"*":{"requests":5}}' })).toThrow(/RATE_LIMIT_GLOBAL_JSON/);
    expect(() => load({ RATE_LIMIT_GLOBAL_JSON: 'rpm=5' })).toThrow(/must be JSON/);
    expect(() => load({ REDIS_KEY_PREFIX: 'has space' })).toThrow(/REDIS_KEY_PREFIX/);
    expect(() => load({ ABUSE_MAX_FAILURES: '0' })).toThrow(/ABUSE_MAX_FAILURES/);
  });
});
