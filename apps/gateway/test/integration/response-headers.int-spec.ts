import { ApiAnswer, ApiRequest, requestApi } from './support/chat-http';
import { Gateway, RateLimitStack, startRateLimitStack } from './support/rate-limit-stack';

/**
 * The headers clients act on, against a real gateway process (keys and chat services, a fake
 * upstream, the local Redis): when to retry a 429 or 503, request ids, CORS.
 */
const WINDOW_MS = 3_000;

const APP_ORIGIN = 'https://app.example.com';

let stack: RateLimitStack;
/** Defaults: CORS, x-svc-timestamp and x-svc-host-name off. */
let gateway: Gateway;
/** CORS on for APP_ORIGIN, x-svc-timestamp on, x-svc-host-name gw-eu-1. */
let configured: Gateway;

beforeAll(async () => {
  stack = await startRateLimitStack();
  [gateway, configured] = await Promise.all([
    stack.startGateway('gateway-headers', { RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) }),
    stack.startGateway('gateway-configured', {
      CORS_ALLOWED_ORIGINS: `${APP_ORIGIN}, http://localhost:5173`,
      SVC_TIMESTAMP_HEADER: 'true',
      SVC_HOST_NAME: 'gw-eu-1',
    }),
  ]);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const send = (path: string, init: ApiRequest = {}) => requestApi(gateway.api, path, init);
const chat = (key: string) => send('/chat/completions', { key, body: { model: 'rl-text', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** retry-after in whole seconds (at least 1) agreeing with retry-after-ms; returns the ms. */
function retryAfterMs(answer: ApiAnswer): number {
  const seconds = answer.headers.get('retry-after');
  const ms = Number(answer.headers.get('retry-after-ms'));
  expect(seconds).toMatch(/^[1-9]\d*$/);
  expect(ms).toBeGreaterThan(0);
  expect(Number(seconds)).toBe(Math.max(1, Math.ceil(ms / 1000)));
  return ms;
}

describe('retry-after on every 429 and 503', () => {
  it('says when a rate-limited request can succeed; a client that waits that long gets through', async () => {
    const caller = await stack.newCaller();
    await stack.setKeyLimits(caller.inference.id, { target: '*', rpm: 2 });
    expect((await chat(caller.inference.secret)).status).toBe(200);
    expect((await chat(caller.inference.secret)).status).toBe(200);
    const refused = await chat(caller.inference.secret);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/2 requests per minute/);
    const wait = retryAfterMs(refused);
    expect(wait).toBeLessThanOrEqual(WINDOW_MS);
    await sleep(wait);
    expect((await chat(caller.inference.secret)).status).toBe(200);
  });

  it('does not count a client’s 429s toward the abuse block, even one that ignores retry-after', async () => {
    const caller = await stack.newCaller();
    await stack.setKeyLimits(caller.inference.id, { target: '*', rpm: 1 });
    expect((await chat(caller.inference.secret)).status).toBe(200);
    // 30 at once, past the block's 20 failures: each is the limiter's 429, never the block's.
    const hammered = await Promise.all(Array.from({ length: 30 }, () => chat(caller.inference.secret)));
    for (const answer of hammered) {
      expect(answer.status).toBe(429);
      expect(answer.body.error).toMatch(/1 requests per minute/);
      retryAfterMs(answer);
    }
    await sleep(Math.max(...hammered.map((x) => Number(x.headers.get('retry-after-ms')))));
    expect((await chat(caller.inference.secret)).status).toBe(200);
    expect((await send('/models')).status).toBe(200);
    const log = await send('/api_keys/rate_limits/log', { key: caller.admin.secret });
    expect(log.body.data.map((hit: { rateLimitType: string }) => hit.rateLimitType)).not.toContain('FAILED_REQUESTS');
  });

  it('passes on an upstream’s retry-after, and says 1 s on a 503 that knows no better', async () => {
    const caller = await stack.newCaller();
    stack.upstream.configure({ failure: 'http-429', failureTimes: 1, retryAfterSeconds: 4 });
    const limited = await chat(caller.inference.secret);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('4');
    expect(limited.headers.get('retry-after-ms')).toBe('4000');
    stack.upstream.configure({ failure: 'none' });

    // rl-image is listed, but no media service runs in this stack.
    const unavailable = await send('/image/generate', { key: caller.inference.secret, body: { model: 'rl-image', prompt: 'a red cube' } });
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('1');
    expect(unavailable.headers.get('retry-after-ms')).toBe('1000');
  });
});

describe('x-request-id', () => {
  const requestIdOf = (answer: ApiAnswer): string => {
    const id = answer.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(answer.headers.get('cf-ray')).toBe(id);
    return id as string;
  };

  it('is on every response, the same value as CF-RAY: success, errors, refusals and streams', async () => {
    const caller = await stack.newCaller();
    const answers = [
      await chat(caller.inference.secret),
      await send('/chat/completions', { key: caller.inference.secret, body: { model: 'rl-text', messages: [], stream: true } }),
      await send('/chat/completions', {
        key: caller.inference.secret,
        body: { model: 'rl-text', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8, stream: true },
      }),
      await send('/models'),
      await send('/no-such-route'),
      await send('/api_keys', { key: caller.inference.secret }),
      await send('/chat/completions', { key: 'svc_not-a-key', body: {} }),
    ];
    expect(answers.map((x) => x.status)).toEqual([200, 400, 200, 200, 404, 401, 401]);
    expect(answers[2].headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(new Set(answers.map(requestIdOf)).size).toBe(answers.length);
  });

  it('is ours, not the caller’s: an inbound x-request-id or traceparent is logged next to it', async () => {
    const clientId = `client-${Date.now()}`;
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const answer = await send('/models', { headers: { 'x-request-id': clientId, traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    const ours = requestIdOf(answer);
    expect(ours).not.toBe(clientId);
    const line = await logLineOf(ours);
    expect(line).toMatchObject({ msg: 'request', requestId: ours, clientRequestId: clientId, traceId, path: '/api/v1/models' });

    // Malformed ones are ignored: not echoed, not logged, not an error.
    const odd = await send('/models', { headers: { 'x-request-id': 'x'.repeat(200), traceparent: 'not-a-trace' } });
    expect(odd.status).toBe(200);
    const oddLine = await logLineOf(requestIdOf(odd));
    expect(oddLine.clientRequestId).toBeUndefined();
    expect(oddLine.traceId).toBeUndefined();
  });
});

describe('CORS', () => {
  const preflight = (api: string, origin: string) =>
    fetch(`${api}/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, x-stainless-retry-count' },
    });
  const corsHeaders = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith('access-control-'));

  it('is off by default: a preflight is a 404 and no response allows another origin', async () => {
    const answer = await preflight(gateway.api, APP_ORIGIN);
    expect(answer.status).toBe(404);
    expect(corsHeaders(answer.headers)).toEqual([]);
    expect(corsHeaders((await send('/models', { headers: { origin: APP_ORIGIN } })).headers)).toEqual([]);
  });

  it('answers a preflight from an allowed origin 204 without a key, allowing the method and the asked headers', async () => {
    const answer = await preflight(configured.api, APP_ORIGIN);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
    expect(answer.headers.get('access-control-allow-headers')).toBe('authorization, content-type, x-stainless-retry-count');
    expect(answer.headers.get('access-control-max-age')).toBe('600');
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    expect(answer.headers.get('vary')).toMatch(/origin/i);
    expect(answer.headers.get('x-request-id')).toBeTruthy();

    const stranger = await preflight(configured.api, 'https://evil.example');
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets an allowed origin read the headers clients use, on answers, errors and streams', async () => {
    const caller = await stack.newCaller();
    const api = (path: string, init: ApiRequest = {}) => requestApi(configured.api, path, { ...init, headers: { origin: APP_ORIGIN } });
    const body = { model: 'rl-text', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 };
    const answers = [
      await api('/chat/completions', { key: caller.inference.secret, body }),
      await api('/chat/completions', { key: caller.inference.secret, body: { ...body, stream: true } }),
      await api('/chat/completions', { key: 'svc_not-a-key', body }),
    ];
    expect(answers.map((x) => x.status)).toEqual([200, 200, 401]);
    for (const answer of answers) {
      expect(answer.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      const exposed = (answer.headers.get('access-control-expose-headers') ?? '').split(', ');
      expect(exposed).toEqual(
        expect.arrayContaining(['x-request-id', 'cf-ray', 'x-ratelimit-remaining-requests', 'x-svc-balance-usd', 'retry-after', 'x-pagination-total']),
      );
    }
    expect(answers[0].headers.get('x-ratelimit-remaining-requests')).toBeTruthy();
    const other = await requestApi(configured.api, '/models', { headers: { origin: 'https://evil.example' } });
    expect(other.status).toBe(200);
    expect(corsHeaders(other.headers)).toEqual([]);
  });
});

describe('x-svc-timestamp and x-svc-host-name', () => {
  it('are sent only when configured: the timestamp on every answer, the operator’s host name on errors', async () => {
    const caller = await stack.newCaller();
    const before = Date.now();
    const ok = await requestApi(configured.api, '/models');
    const failed = await requestApi(configured.api, '/api_keys', { key: caller.inference.secret });
    expect([ok.status, failed.status]).toEqual([200, 401]);
    for (const answer of [ok, failed]) {
      const at = Date.parse(answer.headers.get('x-svc-timestamp') ?? '');
      expect(answer.headers.get('x-svc-timestamp')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(at).toBeGreaterThanOrEqual(before - 1_000);
      expect(at).toBeLessThanOrEqual(Date.now() + 1_000);
    }
    expect(ok.headers.get('x-svc-host-name')).toBeNull();
    expect(failed.headers.get('x-svc-host-name')).toBe('gw-eu-1');

    const plain = [await send('/models'), await send('/api_keys', { key: caller.inference.secret })];
    expect(plain.map((x) => [x.status, x.headers.get('x-svc-timestamp'), x.headers.get('x-svc-host-name')])).toEqual([
      [200, null, null],
      [401, null, null],
    ]);
  });
});

/** The gateway's `request` log line of a request (JSON lines on its output). */
async function logLineOf(requestId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 50; i++) {
    const line = gateway.process
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.requestId === requestId && l.msg === 'request');
    if (line) return line;
    await sleep(100);
  }
  throw new Error(`no log line for ${requestId}`);
}
