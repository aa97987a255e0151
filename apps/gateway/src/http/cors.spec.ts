import Fastify from 'fastify';
import { registerCors } from './cors';

async function app(allowed: Parameters<typeof registerCors>[1]) {
  const fastify = Fastify();
  registerCors(fastify, allowed);
  fastify.get('/x', () => ({ ok: true }));
  await fastify.ready();
  return fastify;
}

describe('CORS', () => {
  it('with *, allows any origin as * (never with credentials), and leaves requests without an Origin alone', async () => {
    const fastify = await app({ kind: 'any' });
    const preflight = await fastify.inject({
      method: 'OPTIONS',
      url: '/x',
      headers: { origin: 'https://anything.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'Authorization' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-headers': 'Authorization' });
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    expect(preflight.headers.vary).toBeUndefined();
    const simple = await fastify.inject({ url: '/x', headers: { origin: 'https://anything.example' } });
    expect(simple.headers['access-control-allow-origin']).toBe('*');
    expect(simple.headers['access-control-expose-headers']).toContain('x-request-id');
    const noOrigin = await fastify.inject({ url: '/x' });
    expect(Object.keys(noOrigin.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('does not echo asked headers that are not header names', async () => {
    const fastify = await app({ kind: 'some', origins: new Set(['https://a.example']) });
    const preflight = await fastify.inject({
      method: 'OPTIONS',
      url: '/x',
      headers: { origin: 'https://a.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-ok, bad header' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://a.example');
    expect(preflight.headers['access-control-allow-headers']).toBeUndefined();
    expect(preflight.headers.vary).toBe('origin');
  });
});
