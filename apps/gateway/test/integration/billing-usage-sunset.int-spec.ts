import { ApiRequest, requestApi } from './support/chat-http';
import { Gateway, RateLimitStack, startRateLimitStack } from './support/rate-limit-stack';

/**
 * GET /billing/usage as the reference serves it (issue 18): retired, a 410 StandardError to any
 * caller and any query, with Deprecation, Sunset and a Link to /billing/usage-history.
 */
let stack: RateLimitStack;
let gateway: Gateway;
let adminKey: string;

beforeAll(async () => {
  stack = await startRateLimitStack();
  gateway = await stack.startGateway('gateway-usage-sunset', {});
  adminKey = (await stack.newCaller('usage-sunset')).admin.secret;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const send = (path: string, init: ApiRequest = {}) => requestApi(gateway.api, path, init);

describe('GET /billing/usage', () => {
  it.each([
    ['no key', undefined, ''],
    ['an ADMIN key and the old query', 'admin', '?page=2&limit=50&startDate=2026-01-01&endDate=2026-02-01'],
    ['a malformed query', 'admin', '?page=-1&limit=abc'],
  ])('answers 410 naming usage-history and the parameters to rename (%s)', async (_what, key, query) => {
    const answer = await send(`/billing/usage${query}`, key ? { key: adminKey } : {});
    expect(answer.status).toBe(410);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect(answer.body.error).toContain('GET /api/v1/billing/usage-history');
    expect(answer.body.error).toContain('pageSize');
    expect(answer.body.error).toContain('startTimestamp');
    expect(answer.headers.get('deprecation')).toBe('@1783555200');
    expect(answer.headers.get('sunset')).toBe('Wed, 16 Sep 2026 00:00:00 GMT');
    expect(answer.headers.get('link')).toBe('</api/v1/billing/usage-history>; rel="successor-version"');
  });

  it('leaves usage-history where it was (a 401 without a key, not a 410)', async () => {
    expect((await send('/billing/usage-history')).status).toBe(401);
  });
});
