import http from 'node:http';
import { AddressInfo } from 'node:net';
import { DomainError } from '@svc/errors';
import { Allowlist, OutboundFetcher, outboundFetcherFromEnv, ResolvedAddress } from '../../src';

/**
 * The SSRF refusal matrix against real sockets: a local HTTP server on 127.0.0.1 stands for both
 * an allowed site (reached under the allowlisted name `site.test`, which a test resolver maps to
 * 127.0.0.1) and the internal targets an attacker wants (127.0.0.1 under its own name).
 */
describe('OutboundFetcher', () => {
  let server: http.Server;
  let port: number;
  let hits: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      const url = new URL(req.url ?? '/', 'http://x');
      switch (url.pathname) {
        case '/page':
          res.setHeader('content-type', 'text/html; charset=utf-8');
          res.end(`<p>hello from ${req.headers.host}</p>`);
          return;
        case '/redirect':
          res.statusCode = 302;
          res.setHeader('location', url.searchParams.get('to') ?? '/page');
          res.end();
          return;
        case '/loop':
          res.statusCode = 301;
          res.setHeader('location', `/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}`);
          res.end();
          return;
        case '/big':
          // No content-length: the cap must hold while streaming.
          res.write(Buffer.alloc(64 * 1024, 97));
          res.write(Buffer.alloc(64 * 1024, 97));
          res.end(Buffer.alloc(64 * 1024, 97));
          return;
        case '/big-declared':
          res.setHeader('content-length', String(10 * 1024 * 1024));
          res.write('x');
          return; // never finishes: the declared size alone must refuse it
        case '/slow':
          setTimeout(() => res.end('late'), 3_000).unref();
          return;
        default:
          res.statusCode = 404;
          res.end('no');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (hits = []));

  const resolverCalls: string[] = [];
  const resolver = async (host: string): Promise<ResolvedAddress[]> => {
    resolverCalls.push(host);
    if (host === 'site.test') return [{ address: '127.0.0.1', family: 4 }];
    if (host === 'public.test') return [{ address: '93.184.216.34', family: 4 }];
    if (host === 'mixed.test')
      return [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ];
    if (host === 'metadata.test') return [{ address: '169.254.169.254', family: 4 }];
    if (host === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };
  const fetcher = new OutboundFetcher({ allowlist: new Allowlist(['site.test']), resolver, limits: { maxBytes: 100 * 1024, timeoutMs: 1_000 } });
  const site = (p: string) => `http://site.test:${port}${p}`;

  async function refusal(promise: Promise<unknown>): Promise<string> {
    const err = await promise.then(
      () => new Error('expected a refusal'),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).status).toBe(400);
    return (err as DomainError).message;
  }

  it('fetches an allowlisted host and returns body, status, media type and final URL', async () => {
    const res = await fetcher.fetch(site('/page'));
    expect(res.status).toBe(200);
    expect(res.mediaType).toBe('text/html');
    expect(res.body.toString()).toBe(`<p>hello from site.test:${port}</p>`);
    expect(res.url).toBe(site('/page'));
  });

  it.each([
    ['file:///etc/passwd', 'The URL uses file; only http and https URLs can be fetched.'],
    ['ftp://example.com/x', 'The URL uses ftp; only http and https URLs can be fetched.'],
    ['gopher://127.0.0.1:6379/_INFO', 'The URL uses gopher; only http and https URLs can be fetched.'],
    ['data:text/plain,hi', 'The URL uses data; only http and https URLs can be fetched.'],
    ['not a url', 'The URL is not a valid absolute URL.'],
    ['http://user:pw@site.test/', 'The URL contains credentials; they are not allowed.'],
  ])('refuses the scheme or form of %s', async (url, message) => {
    expect(await refusal(fetcher.fetch(url))).toBe(message);
  });

  it.each([
    ['http://127.0.0.1:PORT/page', 'a loopback address (127.0.0.1)'],
    ['http://[::1]:PORT/page', 'a loopback address (::1)'],
    ['http://2130706433:PORT/page', 'a loopback address (127.0.0.1)'],
    ['http://0x7f.1:PORT/page', 'a loopback address (127.0.0.1)'],
    ['http://10.0.0.1/', 'a private address (10.0.0.1)'],
    ['http://192.168.0.1/', 'a private address (192.168.0.1)'],
    ['http://172.20.0.1/', 'a private address (172.20.0.1)'],
    ['http://169.254.169.254/latest/meta-data/', 'a cloud metadata address (169.254.169.254)'],
    ['http://[fd00:ec2::254]/', 'a cloud metadata address (fd00:ec2::254)'],
    ['http://169.254.10.10/', 'a link-local address (169.254.10.10)'],
    ['http://[fe80::1]/', 'a link-local address (fe80::1)'],
    ['http://100.64.1.1/', 'a carrier-grade NAT (CGNAT) address (100.64.1.1)'],
    ['http://224.0.0.251/', 'a multicast or broadcast address (224.0.0.251)'],
    ['http://0.0.0.0:PORT/page', 'an unspecified address (0.0.0.0)'],
    ['http://[::ffff:127.0.0.1]:PORT/page', 'an IPv4-mapped IPv6 address (::ffff:7f00:1)'],
    ['http://[::ffff:7f00:1]:PORT/page', 'an IPv4-mapped IPv6 address (::ffff:7f00:1)'],
    ['http://[::127.0.0.1]:PORT/page', 'an IPv4-compatible IPv6 address (::7f00:1)'],
    ['http://[64:ff9b::127.0.0.1]:PORT/page', 'a special-purpose address (rfc6052) (64:ff9b::7f00:1)'],
    ['http://[64:ff9b::10.0.0.1]/', 'a special-purpose address (rfc6052) (64:ff9b::a00:1)'],
    ['http://[2002:7f00:1::1]:PORT/page', 'a special-purpose address (6to4) (2002:7f00:1::1)'],
    ['http://[2002:c0a8:101::1]/', 'a special-purpose address (6to4) (2002:c0a8:101::1)'],
    ['http://[fc00::1]/', 'a private address (fc00::1)'],
  ])('refuses %s (%s)', async (url, reason) => {
    const message = await refusal(fetcher.fetch(url.replace('PORT', String(port))));
    expect(message).toContain(`resolves to ${reason}; only public addresses can be fetched.`);
    expect(hits).toEqual([]);
  });

  it('refuses a DNS name that resolves to loopback (the system resolver, "localhost")', async () => {
    const plain = new OutboundFetcher();
    expect(await refusal(plain.fetch(`http://localhost:${port}/page`))).toMatch(
      /^The URL's host localhost resolves to a loopback address \((127\.0\.0\.1|::1)\)/,
    );
    expect(hits).toEqual([]);
  });

  it('refuses a name with any private address among public ones, and names resolving to metadata', async () => {
    expect(await refusal(fetcher.fetch('http://mixed.test/'))).toBe(
      "The URL's host mixed.test resolves to a private address (10.0.0.5); only public addresses can be fetched.",
    );
    expect(await refusal(fetcher.fetch('http://metadata.test/'))).toContain('a cloud metadata address (169.254.169.254)');
    expect(await refusal(fetcher.fetch('http://nowhere.test/'))).toBe('The host nowhere.test could not be resolved.');
  });

  it('refuses a redirect to a private address, checking every hop', async () => {
    for (const to of [`http://127.0.0.1:${port}/page`, 'http://169.254.169.254/latest/meta-data/', `http://localhost:${port}/page`]) {
      hits = [];
      const message = await refusal(fetcher.fetch(site(`/redirect?to=${encodeURIComponent(to)}`)));
      expect(message).toMatch(/resolves to a (loopback|cloud metadata) address/);
      expect(hits).toEqual([`/redirect?to=${encodeURIComponent(to)}`]);
    }
    expect(await refusal(fetcher.fetch(site('/redirect?to=file:///etc/passwd')))).toBe('A redirect uses file; only http and https URLs can be fetched.');
  });

  it('follows allowed redirects (relative ones too) up to the limit, then refuses', async () => {
    const res = await fetcher.fetch(site('/redirect?to=/page'));
    expect(res.status).toBe(200);
    expect(res.url).toBe(site('/page'));
    hits = [];
    expect(await refusal(fetcher.fetch(site('/loop')))).toBe('Too many redirects (more than 5).');
    expect(hits).toHaveLength(6);
  });

  it('aborts a body over the byte cap while streaming, and refuses a declared oversize at once', async () => {
    expect(await refusal(fetcher.fetch(site('/big')))).toBe('The response is larger than 102400 bytes.');
    const started = Date.now();
    expect(await refusal(fetcher.fetch(site('/big-declared')))).toBe('The response is larger than 102400 bytes.');
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('gives up on a slow server after the time cap', async () => {
    const started = Date.now();
    expect(await refusal(fetcher.fetch(site('/slow')))).toBe('The URL did not answer within 1000 ms.');
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('connects to the address it checked, not to a second DNS answer (rebinding)', async () => {
    let calls = 0;
    // First answer: the allowlisted local server; any later answer: an unroutable address.
    const rebinding = async (): Promise<ResolvedAddress[]> => [{ address: calls++ === 0 ? '127.0.0.1' : '10.255.255.1', family: 4 }];
    const pinned = new OutboundFetcher({ allowlist: new Allowlist(['127.0.0.1']), resolver: rebinding, limits: { timeoutMs: 2_000 } });
    const res = await pinned.fetch(`http://rebind.test:${port}/page`);
    expect(res.body.toString()).toBe(`<p>hello from rebind.test:${port}</p>`);
    expect(calls).toBe(1);
  });

  it('lets an operator allowlist (OUTBOUND_ALLOWLIST) open a CIDR range, and reads its limits from the environment', async () => {
    const env = outboundFetcherFromEnv({ OUTBOUND_ALLOWLIST: '127.0.0.0/8', OUTBOUND_MAX_BYTES: '10' });
    expect(await refusal(env.fetch(`http://127.0.0.1:${port}/page`))).toBe('The response is larger than 10 bytes.');
    const open = outboundFetcherFromEnv({ OUTBOUND_ALLOWLIST: '127.0.0.0/8' });
    expect((await open.fetch(`http://127.0.0.1:${port}/page`)).status).toBe(200);
    expect(() => outboundFetcherFromEnv({ OUTBOUND_TIMEOUT_MS: 'soon' })).toThrow('OUTBOUND_TIMEOUT_MS must be an integer >= 1 (got "soon")');
  });
});
