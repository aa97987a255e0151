import { z } from 'zod';
import { ConfigError, loadConfig, natsUrl } from '.';

describe('NATS_URL', () => {
  const schema = z.object({ NATS_URL: natsUrl });
  const load = (value: string) => loadConfig('gateway', schema, { NATS_URL: value }).NATS_URL;
  const refusal = (value: string): string => {
    try {
      load(value);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error(`${value} was accepted`);
  };

  it('takes one server', () => {
    expect(load('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
  });

  it('takes the seed list of a cluster, as nats.js does (comma-separated, spaces around entries dropped)', () => {
    expect(load('nats://127.0.0.1:4301,nats://127.0.0.1:4302, tls://nats-3.internal:4222')).toBe(
      'nats://127.0.0.1:4301,nats://127.0.0.1:4302,tls://nats-3.internal:4222',
    );
  });

  it('checks every entry and names the bad one', () => {
    expect(refusal('nats://127.0.0.1:4301,http://127.0.0.1:4302')).toMatch(
      /NATS_URL: entry 2 \("http:\/\/127\.0\.0\.1:4302"\) must be a URL with protocol nats:/,
    );
    expect(refusal('nats://127.0.0.1:4301,,nats://127.0.0.1:4303')).toMatch(/entry 2 \(""\)/);
    expect(refusal('127.0.0.1:4222')).toMatch(/NATS_URL: must be a URL with protocol nats:/);
  });
});
