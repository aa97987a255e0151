import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'nats';
import { serviceMigrationsDir } from '@svc/database';
import { createTestDatabase, freePort, PrivateNats, ServiceProcess, startFakeBilling, startPrivateNats, startService, TestDatabase } from '@svc/testing';
import { makeDocx, makePdf } from '../../src/augment/parse/document-fixtures';

/**
 * POST /api/v1/augment/{search,scrape,text-parser} through a gateway and the chat service (from
 * sources), with a local SearXNG-compatible server and local pages. The chat service's SSRF guard
 * allowlists the name `localhost` only (OUTBOUND_ALLOWLIST), so the same pages under 127.0.0.1
 * stand for the internal addresses an attacker would aim at.
 */
const CATALOG = `
models:
  - id: aug-embed
    name: Zoo embeddings (listed only)
    type: embedding
    engine: { kind: embedded-word-vectors, file: zoo/embeddings/svc-zoo-embed.svec }
    pricing: { input: { usd: 1, diem: 1 } }
`;

const ARTICLE = `<!doctype html><html><head><title>Lantern Makers</title><script>window.secret = 1</script></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>The lantern makers of the valley</h1>
<p>For three hundred years the valley has made lanterns of brass and glass, and every spring the makers gather to compare their work.</p>
<p>The oldest workshop still uses <strong>hand-blown</strong> glass, and its lanterns are sold in <a href="https://example.com/market">the market</a> by the river.</p>
<ul><li>brass frames</li><li>glass panes</li></ul></article>
<footer>Copyright nobody</footer></body></html>`;

describe('POST /api/v1/augment/* (gateway, chat service, local search and pages)', () => {
  const adminKey = `svc_aug_${randomBytes(18).toString('base64url')}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-aug-'));
  const stops: Array<() => Promise<void>> = [];
  const queries: string[] = [];
  let api: string;
  let pagesPort: number;
  let chat: ServiceProcess;
  let gateway: ServiceProcess;

  async function serve(handler: http.RequestListener): Promise<number> {
    const server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stops.push(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });
    return (server.address() as AddressInfo).port;
  }

  beforeAll(async () => {
    const searxPort = await serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const q = url.searchParams.get('q') ?? '';
      queries.push(`${url.pathname}?format=${url.searchParams.get('format')}&q=${q}`);
      if (q === 'provider down') {
        res.statusCode = 500;
        res.end('boom');
        return;
      }
      res.setHeader('content-type', 'application/json');
      const results = Array.from({ length: 25 }, (_, i) => ({
        title: `Result ${i} for ${q}`,
        url: `https://example.com/${i}`,
        content: `Snippet ${i}`,
        ...(i === 0 ? { publishedDate: '2026-11-01T00:00:00' } : {}),
      }));
      res.end(JSON.stringify({ query: q, results }));
    });
    pagesPort = await serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/article') {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(ARTICLE);
      } else if (url.pathname === '/notes.txt') {
        res.setHeader('content-type', 'text/plain');
        res.end('plain notes\nline two');
      } else if (url.pathname === '/to-internal') {
        res.statusCode = 302;
        res.setHeader('location', `http://127.0.0.1:${pagesPort}/article`);
        res.end();
      } else if (url.pathname === '/to-metadata') {
        res.statusCode = 302;
        res.setHeader('location', 'http://169.254.169.254/latest/meta-data/');
        res.end();
      } else if (url.pathname === '/image.png') {
        res.setHeader('content-type', 'image/png');
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      } else if (url.pathname === '/long') {
        res.setHeader('content-type', 'text/html');
        res.end(`<html><body><p>${'word '.repeat(20_000)}</p></body></html>`);
      } else if (url.pathname === '/oversize') {
        res.setHeader('content-type', 'text/html');
        res.end(`<html><body><p>${'x'.repeat(300_000)}</p></body></html>`);
      } else {
        res.statusCode = 404;
        res.end('not here');
      }
    });

    const catalogPath = path.join(dir, 'catalog.yaml');
    writeFileSync(catalogPath, CATALOG);
    const nats: PrivateNats = await startPrivateNats();
    stops.push(() => nats.stop());
    // The tools are billed (issue 18); a billing that grants every hold keeps this test on the tools.
    const nc = await connect({ servers: nats.url });
    const stopBilling = startFakeBilling(nc);
    stops.push(async () => {
      stopBilling();
      await nc.close();
    });
    const keysDb: TestDatabase = await createTestDatabase('augk', { migrationsDir: serviceMigrationsDir('keys') });
    stops.push(() => keysDb.drop());
    const chatDb: TestDatabase = await createTestDatabase('augc', { migrationsDir: serviceMigrationsDir('chat') });
    stops.push(() => chatDb.drop());
    const common = { NATS_URL: nats.url, SVC_CATALOG_PATH: catalogPath, LOG_LEVEL: 'info' };
    const keys = startService('keys', 'apps/keys/src/main.ts', {
      ...common,
      KEYS_DATABASE_URL: keysDb.url,
      KEYS_MIGRATE_ON_BOOT: 'false',
      SVC_ADMIN_KEY: adminKey,
    });
    chat = startService('chat', 'apps/chat/src/main.ts', {
      ...common,
      CHAT_DATABASE_URL: chatDb.url,
      CHAT_MIGRATE_ON_BOOT: 'false',
      SEARXNG_URL: `http://127.0.0.1:${searxPort}`,
      OUTBOUND_ALLOWLIST: 'localhost',
      OUTBOUND_MAX_BYTES: '200000',
      SCRAPE_MAX_CHARS: '5000',
    });
    const port = await freePort();
    gateway = startService('gateway', 'apps/gateway/src/main.ts', {
      ...common,
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_KEY_PREFIX: `svc_test_aug_${randomBytes(4).toString('hex')}:`,
      ABUSE_PROTECTION_ENABLED: 'false',
    });
    stops.push(
      () => gateway.stop(),
      () => chat.stop(),
      () => keys.stop(),
    );
    await Promise.all([keys.waitFor('keys service ready', 90_000), chat.waitFor('chat service ready', 90_000), gateway.waitFor('gateway listening', 90_000)]);
    api = `http://127.0.0.1:${port}/api/v1`;
  }, 180_000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (p: string, body: unknown, key = adminKey) =>
    fetch(`${api}${p}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = async (res: Response) => (await res.json()) as any;
  const page = (p: string) => `http://localhost:${pagesPort}${p}`;

  describe('search', () => {
    it('returns the provider results (title, url, content, date), at most limit, default 10', async () => {
      const res = await post('/augment/search', { query: 'lantern makers', limit: 3 });
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body).toEqual({
        query: 'lantern makers',
        results: [
          { title: 'Result 0 for lantern makers', url: 'https://example.com/0', content: 'Snippet 0', date: '2026-11-01T00:00:00' },
          { title: 'Result 1 for lantern makers', url: 'https://example.com/1', content: 'Snippet 1', date: '' },
          { title: 'Result 2 for lantern makers', url: 'https://example.com/2', content: 'Snippet 2', date: '' },
        ],
      });
      expect(queries.at(-1)).toBe('/search?format=json&q=lantern makers');
      expect((await json(await post('/augment/search', { query: 'defaults' }))).results).toHaveLength(10);
      expect((await json(await post('/augment/search', { query: 'most', limit: 20 }))).results).toHaveLength(20);
    });

    it('answers 400 for a missing or long query and a limit outside 1-20, and 502 when the provider fails', async () => {
      for (const body of [{}, { query: '' }, { query: 'x'.repeat(401) }, { query: 'q', limit: 0 }, { query: 'q', limit: 21 }, { query: 'q', limit: 2.5 }]) {
        const res = await post('/augment/search', body);
        expect(res.status).toBe(400);
        expect((await json(res)).details).toBeDefined();
      }
      const down = await post('/augment/search', { query: 'provider down' });
      expect(down.status).toBe(502);
      expect(await json(down)).toEqual({ error: 'The search provider (searxng) failed (HTTP 500).' });
    });

    it('needs an API key', async () => {
      const res = await fetch(`${api}/augment/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"x"}' });
      expect(res.status).toBe(401);
    });
  });

  describe('scrape', () => {
    it('returns the readable part of an HTML page as markdown, without scripts or navigation', async () => {
      const res = await post('/augment/scrape', { url: page('/article') });
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.url).toBe(page('/article'));
      expect(body.format).toBe('markdown');
      expect(body.content).toContain('For three hundred years the valley has made lanterns of brass and glass');
      expect(body.content).toContain('**hand-blown**');
      expect(body.content).toContain('[the market](https://example.com/market)');
      expect(body.content).toMatch(/^-\s+brass frames$/m);
      expect(body.content).not.toContain('window.secret');
      expect(body.content).not.toContain('Copyright nobody');
    });

    it('returns text pages as they are and cuts very long pages with a marker', async () => {
      expect((await json(await post('/augment/scrape', { url: page('/notes.txt') }))).content).toBe('plain notes\nline two');
      const huge = await json(await post('/augment/scrape', { url: page('/long') }));
      expect(huge.content.length).toBeLessThan(5100);
      expect(huge.content).toMatch(/\[content truncated at 5000 characters\]$/);
    });

    it.each([
      ['http://127.0.0.1:PORT/article', 'a loopback address (127.0.0.1)'],
      ['http://169.254.169.254/latest/meta-data/', 'a cloud metadata address (169.254.169.254)'],
      ['http://10.0.0.1/', 'a private address (10.0.0.1)'],
      ['http://[::1]:PORT/article', 'a loopback address (::1)'],
      ['http://localhost:PORT/to-internal', 'a loopback address (127.0.0.1)'],
      ['http://localhost:PORT/to-metadata', 'a cloud metadata address (169.254.169.254)'],
    ])('refuses %s with 400 (%s)', async (url, reason) => {
      const res = await post('/augment/scrape', { url: url.replace('PORT', String(pagesPort)) });
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body.error).toContain(`resolves to ${reason}; only public addresses can be fetched.`);
      expect(body.details.url._errors).toEqual([body.error]);
    });

    it('refuses other schemes, unsupported content, error pages and oversize bodies with 400', async () => {
      const cases: Array<[string, string]> = [
        ['file:///etc/passwd', 'The URL uses file; only http and https URLs can be fetched.'],
        [page('/image.png'), "The page's content type (image/png) cannot be scraped; only HTML and text pages can."],
        [page('/missing'), 'The page answered HTTP 404.'],
        [page('/oversize'), 'The response is larger than 200000 bytes.'],
      ];
      for (const [url, error] of cases) {
        const res = await post('/augment/scrape', { url });
        expect(res.status).toBe(400);
        expect((await json(res)).error).toBe(error);
      }
      const notUrl = await post('/augment/scrape', { url: 'not a url' });
      expect(notUrl.status).toBe(400);
      expect((await json(notUrl)).details.url._errors).toEqual(['url must be an absolute URL']);
    });
  });

  describe('text-parser', () => {
    const upload = (data: Buffer | string, filename: string, type: string, fields: Record<string, string> = {}) => {
      const form = new FormData();
      form.append('file', new Blob([typeof data === 'string' ? data : new Uint8Array(data)], { type }), filename);
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      return fetch(`${api}/augment/text-parser`, { method: 'POST', headers: { authorization: `Bearer ${adminKey}` }, body: form });
    };

    it('extracts text and a token count from PDF, DOCX, HTML and plain text', async () => {
      const pdf = await upload(makePdf(['Lanterns of brass', 'and glass (hand-blown)']), 'doc.pdf', 'application/pdf');
      expect(pdf.status).toBe(200);
      const pdfBody = await json(pdf);
      expect(pdfBody.text).toBe('Lanterns of brass\nand glass (hand-blown)');
      expect(pdfBody.tokens).toBeGreaterThan(5);

      const docx = await json(
        await upload(makeDocx(['First paragraph.', 'Second & last.']), 'doc.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
      );
      expect(docx.text).toBe('First paragraph.\n\nSecond & last.');

      const html = await json(
        await upload('<html><head><style>p{}</style></head><body><h1>Title</h1><p>Body text.</p><script>x()</script></body></html>', 'page.html', 'text/html'),
      );
      expect(html.text).toBe('Title\nBody text.');

      const text = await json(await upload('just some words\r\nsecond line', 'notes.txt', 'text/plain'));
      expect(text).toEqual({ text: 'just some words\nsecond line', tokens: 7 });
    });

    it('returns only the text with response_format=text', async () => {
      const res = await upload('plain words', 'a.txt', 'text/plain', { response_format: 'text' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe('plain words');
    });

    it('answers 400 for encrypted, corrupt, binary and empty files, never a crash', async () => {
      const cases: Array<[Buffer | string, string, string, string]> = [
        [makePdf(['secret'], { encrypted: true }), 'locked.pdf', 'application/pdf', 'The PDF is encrypted (password protected); upload an unencrypted copy.'],
        [Buffer.from('%PDF-1.4\nthis is not really a pdf'), 'broken.pdf', 'application/pdf', 'The file is not a valid PDF (it could not be read).'],
        [
          Buffer.from('PK\x03\x04 not a zip at all'),
          'broken.docx',
          'application/octet-stream',
          'The file is not a valid DOCX document (it could not be read).',
        ],
        [Buffer.from([0, 1, 2, 3, 255, 254, 0, 7]), 'blob.bin', 'application/octet-stream', 'Unsupported file type (supported: PDF, DOCX, HTML, plain text).'],
        [Buffer.from([0xc3, 0x28, 0x41]), 'latin.txt', 'text/plain', 'The file is not valid UTF-8 text.'],
      ];
      for (const [data, name, type, error] of cases) {
        const res = await upload(data, name, type);
        expect([name, res.status]).toEqual([name, 400]);
        expect(await json(res)).toEqual({ error, details: { _errors: [], file: { _errors: [error] } } });
      }
      const empty = await upload('', 'empty.txt', 'text/plain');
      expect(empty.status).toBe(400);
      // The service is still there.
      expect((await upload('still alive', 'a.txt', 'text/plain')).status).toBe(200);
    });

    it('answers 415 for a JSON body and 400 without a file', async () => {
      expect((await post('/augment/text-parser', { file: 'x' })).status).toBe(415);
      const form = new FormData();
      form.append('response_format', 'json');
      const res = await fetch(`${api}/augment/text-parser`, { method: 'POST', headers: { authorization: `Bearer ${adminKey}` }, body: form });
      expect(res.status).toBe(400);
      expect((await json(res)).details.file._errors[0]).toMatch(/file is required/);
    });
  });

  it('never logs queries, page text or document text', () => {
    for (const output of [gateway.output(), chat.output()]) {
      expect(output).not.toContain('lantern makers');
      expect(output).not.toContain('three hundred years');
      expect(output).not.toContain('hand-blown');
      expect(output).not.toContain('just some words');
    }
  });
});
