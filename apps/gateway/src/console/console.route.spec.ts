import Fastify from 'fastify';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@svc/logging';
import { CONSOLE_CSP } from './console-csp';
import { NOT_BUILT_MESSAGE, registerConsole } from './console.route';

const INDEX = '<!doctype html><script type="module" src="/console/assets/index-AbC123.js"></script>';

describe('the console static files', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'console-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), INDEX);
    writeFileSync(path.join(dir, 'assets/index-AbC123.js'), 'console.log(1)');
    writeFileSync(path.join(dir, 'favicon.svg'), '<svg/>');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function app(from: string) {
    const fastify = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    registerConsole(fastify, createLogger('test', 'silent'), from);
    await fastify.ready();
    return fastify;
  }

  it('serves index.html at /console and /console/ revalidated by ETag, with the CSP', async () => {
    const fastify = await app(dir);
    for (const url of ['/console', '/console/']) {
      const page = await fastify.inject({ url });
      expect(page.statusCode).toBe(200);
      expect(page.body).toBe(INDEX);
      expect(page.headers).toMatchObject({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        'content-security-policy': CONSOLE_CSP,
        'x-content-type-options': 'nosniff',
      });
      const again = await fastify.inject({ url, headers: { 'if-none-match': page.headers.etag as string } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
  });

  it('caches hashed assets for a year as immutable, other files briefly', async () => {
    const fastify = await app(dir);
    const js = await fastify.inject({ url: '/console/assets/index-AbC123.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await fastify.inject({ url: '/console/favicon.svg' });
    expect(icon.headers).toMatchObject({ 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=3600' });
  });

  it('answers unknown files and path tricks 404 in the one error shape, never a file outside the build', async () => {
    const fastify = await app(dir);
    for (const url of ['/console/assets/nope.js', '/console/..%2F..%2Fpackage.json', '/console/assets']) {
      const answer = await fastify.inject({ url });
      expect(answer.statusCode).toBe(404);
      expect(Object.keys(answer.json())).toEqual(['error']);
    }
  });

  it('answers 404 with how to build it when the console was not built, and the server still starts', async () => {
    const fastify = await app(path.join(dir, 'missing'));
    const answer = await fastify.inject({ url: '/console' });
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toEqual({ error: NOT_BUILT_MESSAGE });
  });
});
