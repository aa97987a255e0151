import http from 'node:http';
import { AddressInfo } from 'node:net';
import { DomainError } from '@svc/errors';
import { WebSearch, WebSearchConfig } from '../../src/augment/search/web-search';

/** The search providers against local HTTP servers that answer like SearXNG and Brave Search. */
describe('web search providers', () => {
  let server: http.Server;
  let base: string;
  const seen: Array<{ url: string; token?: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', token: req.headers['x-subscription-token'] as string | undefined });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.searchParams.get('q') === 'slow') return void setTimeout(() => res.end('{}'), 2_000).unref();
      res.setHeader('content-type', 'application/json');
      if (url.pathname === '/brave') {
        if (req.headers['x-subscription-token'] !== 'brave-key') return void res.writeHead(401).end('{}');
        res.end(
          JSON.stringify({
            web: {
              results: [
                {
                  title: 'The <strong>lantern</strong>',
                  url: 'https://a.example/',
                  description: 'A <strong>lantern</strong> page',
                  page_age: '2026-10-01T00:00:00',
                },
                { title: 'no url' },
              ],
            },
          }),
        );
        return;
      }
      res.end(JSON.stringify({ results: [{ title: 'S', url: 'https://s.example/', content: 'c' }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const config = (over: Partial<WebSearchConfig>): WebSearchConfig => ({ BRAVE_SEARCH_URL: `${base}/brave`, SEARCH_TIMEOUT_MS: 500, ...over });

  it('is not configured without a provider: searchConfigured() is false and search is a 400 saying so', async () => {
    const none = WebSearch.fromConfig(config({}));
    expect(none.searchConfigured()).toBe(false);
    const err = (await none.search('x', 5).catch((e: unknown) => e)) as DomainError;
    expect(err.status).toBe(400);
    expect(err.message).toBe('Web search is not configured on this server (set SEARXNG_URL or BRAVE_SEARCH_API_KEY).');
  });

  it('asks Brave Search with its token and count, strips its highlight tags and skips results without a URL', async () => {
    const brave = WebSearch.fromConfig(config({ BRAVE_SEARCH_API_KEY: 'brave-key' }));
    expect(brave.providerName).toBe('brave');
    expect(await brave.search('lantern', 7)).toEqual([
      { title: 'The lantern', url: 'https://a.example/', content: 'A lantern page', date: '2026-10-01T00:00:00' },
    ]);
    expect(seen.at(-1)).toEqual({ url: '/brave?q=lantern&count=7', token: 'brave-key' });
    const wrongKey = (await WebSearch.fromConfig(config({ BRAVE_SEARCH_API_KEY: 'nope' }))
      .search('x', 1)
      .catch((e: unknown) => e)) as DomainError;
    expect(wrongKey.status).toBe(502);
  });

  it('prefers SearXNG when both are configured unless SEARCH_PROVIDER says otherwise, and refuses a provider that is not configured', async () => {
    expect(WebSearch.fromConfig(config({ SEARXNG_URL: base, BRAVE_SEARCH_API_KEY: 'brave-key' })).providerName).toBe('searxng');
    expect(WebSearch.fromConfig(config({ SEARXNG_URL: base, BRAVE_SEARCH_API_KEY: 'brave-key', SEARCH_PROVIDER: 'brave' })).providerName).toBe('brave');
    expect(() => WebSearch.fromConfig(config({ SEARCH_PROVIDER: 'brave' }))).toThrow(
      'SEARCH_PROVIDER=brave but that provider is not configured (set BRAVE_SEARCH_API_KEY)',
    );
    expect(await WebSearch.fromConfig(config({ SEARXNG_URL: `${base}/sub/` })).search('q', 3)).toEqual([
      { title: 'S', url: 'https://s.example/', content: 'c', date: '' },
    ]);
    expect(seen.at(-1)?.url).toBe('/sub/search?q=q&format=json');
  });

  it('answers 504 when the provider is slower than SEARCH_TIMEOUT_MS and 502 when it is unreachable', async () => {
    const slow = (await WebSearch.fromConfig(config({ SEARXNG_URL: base }))
      .search('slow', 1)
      .catch((e: unknown) => e)) as DomainError;
    expect(slow.status).toBe(504);
    const gone = (await WebSearch.fromConfig(config({ SEARXNG_URL: 'http://127.0.0.1:1' }))
      .search('x', 1)
      .catch((e: unknown) => e)) as DomainError;
    expect(gone.status).toBe(502);
  });
});
