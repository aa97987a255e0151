import { z } from 'zod';
import { commonEnv, ConfigError, loadConfig, positiveInt, postgresUrl } from '.';

describe('config validated at boot', () => {
  const schema = z.object({ ...commonEnv, DB_URL: postgresUrl('svc_x'), WORKERS: positiveInt(2) });

  it('defaults to the local services so a fresh machine needs no .env', () => {
    expect(loadConfig('x', schema, {})).toMatchObject({
      NATS_URL: 'nats://127.0.0.1:4222',
      DB_URL: 'postgresql://postgres@127.0.0.1:5432/svc_x',
      WORKERS: 2,
      LOG_LEVEL: 'info',
    });
  });

  it('names every bad variable in one clear error', () => {
    let error: unknown;
    try {
      loadConfig('chat', schema, { NATS_URL: 'http://nope', WORKERS: '-1', LOG_LEVEL: 'loud' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/^chat: invalid configuration/);
    expect(message).toMatch(/NATS_URL: must be a URL with protocol nats:/);
    expect(message).toMatch(/WORKERS/);
    expect(message).toMatch(/LOG_LEVEL/);
  });
});
