import { Bucket } from './limit-plan';
import { BucketState } from './limiter.types';
import { rateLimitHeaders } from './rate-limit-headers';

const NOW = 1_800_000_000_000;
const WINDOW = 60_000;
const bucket = (scope: Bucket['scope'], limits: Partial<Bucket['limits']>): Bucket => ({
  scope,
  id: scope,
  limits: { rpm: null, tpm: null, rpd: null, ...limits },
});
const state = (over: Partial<BucketState> = {}): BucketState => ({ count: 0, used: 0, dayCount: 0, oldestAt: null, ...over });

describe('rate-limit headers', () => {
  it('shows the counters of an admitted request, resets from the oldest request in the window', () => {
    const headers = rateLimitHeaders(
      [bucket('user', { rpm: 20, tpm: 1000 })],
      { now: NOW, states: [state({ count: 3, used: 300, oldestAt: NOW - 15_500 })] },
      WINDOW,
    );
    expect(headers).toEqual({
      'x-ratelimit-limit-requests': '20',
      'x-ratelimit-remaining-requests': '17',
      'x-ratelimit-reset-requests': String(Math.ceil((NOW - 15_500 + WINDOW) / 1000)),
      'x-ratelimit-type': 'user',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '700',
      'x-ratelimit-reset-tokens': '45',
    });
  });

  it('shows the bucket that binds first, per requests and per tokens', () => {
    const buckets = [bucket('api_key', { rpm: 10 }), bucket('user', { rpm: 100, tpm: 1000 })];
    const headers = rateLimitHeaders(
      buckets,
      { now: NOW, states: [state({ count: 2, oldestAt: NOW }), state({ count: 90, used: 10, oldestAt: NOW })] },
      WINDOW,
    );
    expect(headers['x-ratelimit-limit-requests']).toBe('100');
    expect(headers['x-ratelimit-remaining-requests']).toBe('10');
    expect(headers['x-ratelimit-type']).toBe('user');
    expect(headers['x-ratelimit-limit-tokens']).toBe('1000');
    const tighter = rateLimitHeaders(buckets, { now: NOW, states: [state({ count: 9, oldestAt: NOW }), state({ count: 90, oldestAt: NOW })] }, WINDOW);
    expect(tighter['x-ratelimit-limit-requests']).toBe('10');
    expect(tighter['x-ratelimit-type']).toBe('api_key');
  });

  it('on a refusal shows the refusing bucket and when a retry can succeed', () => {
    const buckets = [bucket('api_key', { rpm: 5 }), bucket('user', { rpm: 100, tpm: 1000 })];
    const states = [state({ count: 1, oldestAt: NOW - 1000 }), state({ count: 50, used: 990, oldestAt: NOW - 30_000 })];
    const tpm = rateLimitHeaders(buckets, { now: NOW, states, denial: { bucket: 1, kind: 'TPM', retryAt: NOW + 12_300 } }, WINDOW);
    expect(tpm['x-ratelimit-type']).toBe('user');
    expect(tpm['x-ratelimit-remaining-tokens']).toBe('10');
    expect(tpm['x-ratelimit-reset-tokens']).toBe('13');
    const rpm = rateLimitHeaders(
      buckets,
      { now: NOW, states: [state({ count: 5, oldestAt: NOW - 1000 }), states[1]], denial: { bucket: 0, kind: 'RPM', retryAt: NOW + 59_000 } },
      WINDOW,
    );
    expect(rpm['x-ratelimit-limit-requests']).toBe('5');
    expect(rpm['x-ratelimit-remaining-requests']).toBe('0');
    expect(rpm['x-ratelimit-reset-requests']).toBe(String(Math.ceil((NOW + 59_000) / 1000)));
    expect(rpm['x-ratelimit-type']).toBe('api_key');
  });

  it('counts a per-day limit into remaining requests and resets at the next UTC midnight when it binds', () => {
    const headers = rateLimitHeaders([bucket('user', { rpm: 20, rpd: 3 })], { now: NOW, states: [state({ count: 1, dayCount: 2, oldestAt: NOW })] }, WINDOW);
    expect(headers['x-ratelimit-remaining-requests']).toBe('1');
    expect(headers['x-ratelimit-reset-requests']).toBe(String((Math.floor(NOW / 86_400_000) + 1) * 86_400));
  });

  it('leaves token headers out for models without a token limit, and resets now on an empty window', () => {
    const headers = rateLimitHeaders([bucket('user', { rpm: 20 })], { now: NOW, states: [state()] }, WINDOW);
    expect(headers).toEqual({
      'x-ratelimit-limit-requests': '20',
      'x-ratelimit-remaining-requests': '20',
      'x-ratelimit-reset-requests': String(NOW / 1000),
      'x-ratelimit-type': 'user',
    });
  });
});
