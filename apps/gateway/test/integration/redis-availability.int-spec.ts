import Redis from 'ioredis';
import { Logger } from '@svc/logging';
import { PrivateRedis, startPrivateRedis } from '@svc/testing';
import { GatewayConfig } from '../../src/config';
import { RedisAvailability } from '../../src/rate-limit/redis-availability';

/**
 * The fail-fast Redis timeout must not turn a busy event loop into a Redis outage (which refuses
 * every request without a key): a command issued just before a long synchronous stretch is
 * answered, not timed out. A real Redis on a private port.
 */
describe('RedisAvailability', () => {
  let server: PrivateRedis;
  let redis: Redis;
  const logger = { error: jest.fn(), warn: jest.fn(), info: jest.fn() } as unknown as Logger;

  beforeAll(async () => {
    server = await startPrivateRedis();
    redis = new Redis(server.url);
    await new Promise((resolve) => redis.once('ready', resolve));
  });
  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  const availability = () => new RedisAvailability(redis, { RATE_LIMIT_REDIS_TIMEOUT_MS: 50 } as GatewayConfig, logger);

  it('answers a command issued just before the event loop was blocked past the timeout', async () => {
    const a = availability();
    const call = a.call('ping', (r) => r.ping());
    const until = Date.now() + 250;
    while (Date.now() < until); // e.g. the OpenAPI YAML built for another request in the same turn
    await expect(call).resolves.toBe('PONG');
    expect(a.degraded).toBe(false);
  });

  it('still times out a Redis that does not answer, and reports degraded mode', async () => {
    const a = availability();
    const started = Date.now();
    await expect(a.call('never', () => new Promise<never>(() => undefined))).rejects.toThrow(/no answer within 50 ms/);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(a.degraded).toBe(true);
  });
});
