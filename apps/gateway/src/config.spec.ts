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

describe('gateway config: CORS', () => {
  it('is off unless CORS_ALLOWED_ORIGINS names origins, and a malformed one stops the boot', () => {
    expect(load({}).CORS_ALLOWED_ORIGINS).toEqual({ kind: 'none' });
    expect(load({ CORS_ALLOWED_ORIGINS: '*' }).CORS_ALLOWED_ORIGINS).toEqual({ kind: 'any' });
    expect(() => load({ CORS_ALLOWED_ORIGINS: 'https://app.example.com/' })).toThrow(/CORS_ALLOWED_ORIGINS/);
  });
});

describe('gateway config: x-svc-timestamp and x-svc-host-name', () => {
  it('are off by default; a host name is a name, never an address', () => {
    expect(load({}).SVC_TIMESTAMP_HEADER).toBe(false);
    expect(load({}).SVC_HOST_NAME).toBeUndefined();
    expect(load({ SVC_TIMESTAMP_HEADER: 'true', SVC_HOST_NAME: 'gw-eu-1' })).toMatchObject({ SVC_TIMESTAMP_HEADER: true, SVC_HOST_NAME: 'gw-eu-1' });
    for (const bad of ['10.0.3.7', '::1', 'host name', 'x'.repeat(65)]) expect(() => load({ SVC_HOST_NAME: bad })).toThrow(/SVC_HOST_NAME/);
  });
});

describe('gateway config: ERROR_STYLE', () => {
  it("is the spec's shape unless set to openai, and anything else stops the boot", () => {
    expect(load({}).ERROR_STYLE).toBe('standard');
    expect(load({ ERROR_STYLE: 'openai' }).ERROR_STYLE).toBe('openai');
    expect(() => load({ ERROR_STYLE: 'OpenAI' })).toThrow(/ERROR_STYLE/);
  });
});

describe('gateway config: slow-client limits of the HTTP server', () => {
  it('defaults to limits on receiving a request, an idle keep-alive and a per-address connection cap', () => {
    expect(load({})).toMatchObject({
      REQUEST_HEADERS_TIMEOUT_MS: 10_000,
      REQUEST_RECEIVE_TIMEOUT_MS: 60_000,
      KEEP_ALIVE_TIMEOUT_MS: 72_000,
      MAX_CONNECTIONS_PER_IP: 512,
    });
  });

  it('turns the connection cap off behind a trusted proxy unless it is set, and takes 0 as off', () => {
    expect(load({ TRUST_PROXY: 'true' }).MAX_CONNECTIONS_PER_IP).toBe(0);
    expect(load({ TRUST_PROXY: 'true', MAX_CONNECTIONS_PER_IP: '64' }).MAX_CONNECTIONS_PER_IP).toBe(64);
    expect(load({ MAX_CONNECTIONS_PER_IP: '0' }).MAX_CONNECTIONS_PER_IP).toBe(0);
    expect(load({ MAX_CONNECTIONS_PER_IP: '' }).MAX_CONNECTIONS_PER_IP).toBe(512);
  });

  it('refuses a headers timeout longer than the whole request may take, and non-numbers, by name', () => {
    expect(() => load({ REQUEST_HEADERS_TIMEOUT_MS: '5000', REQUEST_RECEIVE_TIMEOUT_MS: '4000' })).toThrow(
      /REQUEST_HEADERS_TIMEOUT_MS: must not be larger than REQUEST_RECEIVE_TIMEOUT_MS/,
    );
    expect(() => load({ KEEP_ALIVE_TIMEOUT_MS: '0' })).toThrow(/KEEP_ALIVE_TIMEOUT_MS/);
    expect(() => load({ MAX_CONNECTIONS_PER_IP: '-1' })).toThrow(/MAX_CONNECTIONS_PER_IP/);
  });
});

describe('gateway config: request bodies', () => {
  it('holds 40 MiB of bodies in flight unless BODY_BUDGET_BYTES says otherwise, and never less than one body at the limit', () => {
    expect(load({})).toMatchObject({ BODY_LIMIT_BYTES: 41_943_040, BODY_BUDGET_BYTES: 41_943_040 });
    expect(load({ BODY_LIMIT_BYTES: '8388608' }).BODY_BUDGET_BYTES).toBe(41_943_040);
    expect(load({ BODY_LIMIT_BYTES: '104857600' }).BODY_BUDGET_BYTES).toBe(104_857_600);
    expect(load({ BODY_BUDGET_BYTES: '83886080' }).BODY_BUDGET_BYTES).toBe(83_886_080);
    expect(load({ BODY_BUDGET_BYTES: '' }).BODY_BUDGET_BYTES).toBe(41_943_040);
    expect(() => load({ BODY_BUDGET_BYTES: '1048576' })).toThrow(/BODY_BUDGET_BYTES: must not be smaller than BODY_LIMIT_BYTES/);
    expect(() => load({ BODY_BUDGET_BYTES: '0' })).toThrow(/BODY_BUDGET_BYTES/);
    expect(() => load({ BODY_BUDGET_BYTES: 'lots' })).toThrow(/BODY_BUDGET_BYTES/);
  });
});
