import { Case, problemOf } from './support/answer-checks';
import { BOUNDARY, formBody, formContentType } from './support/multipart';
import { BODY_LIMIT_BYTES, ResiliencePlatform } from './support/platform';
import { RawAnswer, rawRequest } from './support/raw-http';

export interface SuiteContext {
  platform: ResiliencePlatform;
  send(request: Buffer, deadlineMs?: number): Promise<RawAnswer>;
  failuresOf(cases: Case[]): Promise<string[]>;
}

const MB = 1024 * 1024;
const chunk = (bytes: Buffer) => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
const json = (answer: RawAnswer) => JSON.parse(answer.body.toString()) as { error: string; details?: Record<string, { _errors: string[] }> };

/**
 * Issue 16's findings on the main branch of the time, as an attacker found them: each answered
 * 500, 503 or never. Now each is a 4xx in the one error shape, naming the field where there is one.
 */
export function findingsSuite(context: () => SuiteContext): void {
  describe("issue 16's findings, fixed", () => {
    const post = (path: string, body: string | Buffer, contentType = 'application/json') =>
      rawRequest('POST', `/api/v1${path}`, { authorization: `Bearer ${context().platform.key}`, 'content-type': contentType }, body);

    it('multipart with no boundary, a wrong boundary, a truncated part or no closing delimiter is a 400 on every route that takes a body', async () => {
      const form = formBody([
        { name: 'model', value: 'default' },
        { name: 'prompt', value: 'a red circle' },
      ]);
      const routes = [
        '/image/edit',
        '/images/edits',
        '/image/upscale',
        '/audio/speech',
        '/audio/transcriptions',
        '/embeddings',
        '/chat/completions',
        '/augment/text-parser',
        '/api_keys',
      ];
      const broken: Array<[string, Buffer, string]> = [
        ['no boundary', form, 'multipart/form-data'],
        ['a wrong boundary', form, 'multipart/form-data; boundary=other'],
        ['a truncated part', form.subarray(0, 60), formContentType()],
        ['no closing delimiter', form.subarray(0, form.length - `--${BOUNDARY}--\r\n`.length), formContentType()],
      ];
      const answers: Record<string, number> = {};
      for (const route of routes) {
        for (const [name, body, type] of broken) {
          const answer = await context().send(post(route, body, type));
          expect(problemOf(answer)).toBeNull();
          answers[`${route} with ${name}`] = answer.status;
          expect(json(answer).error).toMatch(/^Malformed multipart\/form-data body/);
        }
      }
      expect(new Set(Object.values(answers))).toEqual(new Set([400]));
    });

    it('a multipart body half again past BODY_LIMIT_BYTES (no part over it) is a 413, with a Content-Length or chunked without one', async () => {
      const form = formBody([
        { name: 'prompt', value: 'x'.repeat(BODY_LIMIT_BYTES / 2) },
        { name: 'model', value: 'x'.repeat(BODY_LIMIT_BYTES / 2) },
        { name: 'image', value: Buffer.alloc(BODY_LIMIT_BYTES / 2), filename: 'a.png' },
      ]);
      const headers = { authorization: `Bearer ${context().platform.key}`, 'content-type': formContentType() };
      // The head alone: the declared length is refused before a byte of the body is read (sending it
      // too would race the server's close against our write, which a reset can win).
      const declared = await context().send(rawRequest('POST', '/api/v1/image/edit', { ...headers, 'content-length': String(form.length) }));
      const chunked = await context().send(
        rawRequest('POST', '/api/v1/image/edit', { ...headers, 'transfer-encoding': 'chunked' }, Buffer.concat([chunk(form), Buffer.from('0\r\n\r\n')])),
      );
      for (const answer of [declared, chunked]) {
        expect(answer.status).toBe(413);
        expect(problemOf(answer)).toBeNull();
      }
    });

    it('a 10,000-deep object in a field is a 400 naming the field', async () => {
      const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
      for (const [path, field, body] of [
        ['/chat/completions', 'svc_parameters', `{"model":"default","messages":[{"role":"user","content":"hi"}],"svc_parameters":${deep}}`],
        [
          '/chat/completions',
          'tools',
          `{"model":"default","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deep}}}]}`,
        ],
        ['/image/generate', 'style_references', `{"model":"default","prompt":"a circle","style_references":[${deep}]}`],
      ]) {
        const answer = await context().send(post(path, body));
        expect(answer.status).toBe(400);
        expect(json(answer).details?.[field]?._errors).toEqual(['nested deeper than 64 levels']);
      }
    });

    it('a NUL in an API key description is a 400 naming the field (Postgres refuses NUL in text)', async () => {
      const answer = await context().send(post('/api_keys', JSON.stringify({ apiKeyType: 'INFERENCE', description: 'ops\u0000' })));
      expect(answer.status).toBe(400);
      expect(json(answer).details?.description?._errors).toEqual(['must not contain NUL characters (\\u0000)']);
    });

    it('a field of 1 MB or more (more than one NATS message holds) is a 400 naming it, not a 503', async () => {
      const chat = { model: 'default', messages: [{ role: 'user', content: 'hi' }] };
      for (const [path, field, body] of [
        ['/chat/completions', 'stop', { ...chat, stop: 'x'.repeat(MB) }],
        ['/chat/completions', 'fuzz_extra', { ...chat, fuzz_extra: 'x'.repeat(5 * MB) }],
        ['/chat/completions', 'messages', { ...chat, messages: [{ role: 'user', content: '\u00e9'.repeat(MB) }] }],
        ['/image/generate', 'style_preset', { model: 'default', prompt: 'a circle', style_preset: 'x'.repeat(MB) }],
      ] as const) {
        const answer = await context().send(post(path, JSON.stringify(body)));
        expect(answer.status).toBe(400);
        const details = json(answer).details!;
        expect(JSON.stringify(details)).toMatch(/KiB as JSON; a request's fields may take at most 768 KiB/);
        expect(Object.keys(details)).toContain(field);
      }
    });

    it("answers Fastify's own client errors in the one error shape, without its message and statusCode keys", async () => {
      const badLength = Buffer.from(
        `POST /api/v1/chat/completions HTTP/1.1\r\nhost: gateway\r\ncontent-length: abc\r\ncontent-type: application/json\r\n\r\n{}`,
      );
      const answer = await context().send(badLength);
      expect(answer.status).toBe(400);
      expect(json(answer)).toEqual({ error: 'Malformed HTTP request: invalid Content-Length.' });
      expect(problemOf(answer)).toBeNull();
    });

    it('the URL guard refuses IPv4 inside IPv6 before connecting: IPv4-compatible, IPv4-mapped, NAT64, 6to4', async () => {
      for (const url of [
        'http://[::127.0.0.1]/',
        'http://[::ffff:127.0.0.1]/',
        'http://[::ffff:7f00:1]/',
        'http://[64:ff9b::10.0.0.1]/',
        'http://[2002:c0a8:101::1]/',
      ]) {
        // A funded key: scraping is billed, and admission comes before the guard.
        const request = rawRequest(
          'POST',
          '/api/v1/augment/scrape',
          { authorization: `Bearer ${context().platform.fundedKey}`, 'content-type': 'application/json' },
          JSON.stringify({ url }),
        );
        const answer = await context().send(request);
        expect(answer.status).toBe(400);
        expect(json(answer).details?.url?._errors[0]).toMatch(/only public addresses can be fetched/);
      }
    });
  });
}
