import http from 'node:http';
import { AddressInfo } from 'node:net';
import { DomainError } from '@svc/errors';
import { OpenAIEmbeddingsEngine } from '../../src/engines/embeddings/openai-embeddings.engine';

/** OpenAIEmbeddingsEngine against a local server answering like vLLM / OpenAI, and failing in each way. */
describe('OpenAIEmbeddingsEngine', () => {
  let server: http.Server;
  let baseUrl: string;
  const requests: Array<{ path: string; auth?: string; body: any }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => {
        const body = JSON.parse(raw);
        requests.push({ path: req.url ?? '', auth: req.headers.authorization, body });
        const first = body.input[0] as string;
        if (first === 'too long')
          return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'input exceeds 512 tokens' } }));
        if (first === 'busy') return void res.writeHead(429, { 'retry-after': '7' }).end();
        if (first === 'crash') return void res.writeHead(500).end('stack trace with secrets');
        if (first === 'slow') return void setTimeout(() => res.end('{}'), 2_000).unref();
        // A server that ignores encoding_format and dimensions: float arrays of 4, in reverse order.
        const data = (body.input as string[]).map((s, index) => ({ object: 'embedding', index, embedding: [s.length, 0, 0, 0] })).reverse();
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ data, usage: { prompt_tokens: 9, total_tokens: 9 } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const engine = (forwardDimensions = true) =>
    new OpenAIEmbeddingsEngine({ baseUrl, model: 'm', apiKey: 'secret-key', timeoutMs: 500, connections: 2, forwardDimensions });

  it('posts to {baseUrl}/embeddings with the key, base64 and dimensions, and returns vectors in input order', async () => {
    const e = engine();
    const out = await e.embed({ inputs: ['a', 'abc'], dimensions: 2 });
    expect(requests.at(-1)).toEqual({
      path: '/v1/embeddings',
      auth: 'Bearer secret-key',
      body: { model: 'm', input: ['a', 'abc'], encoding_format: 'base64', dimensions: 2 },
    });
    // The server ignored `dimensions`: shortened and re-normalised here.
    expect(out.embeddings.map((v) => Array.from(v))).toEqual([
      [1, 0],
      [1, 0],
    ]);
    expect(out.promptTokens).toBe(9);
    await engine(false)
      .embed({ inputs: ['x'], dimensions: 2 })
      .catch(() => undefined);
    expect(requests.at(-1)?.body.dimensions).toBeUndefined();
    await e.close();
  });

  it.each([
    ['too long', 400, 'The model server rejected the request: input exceeds 512 tokens'],
    ['busy', 429, 'The model server is rate limiting requests. Retry after 7 seconds.'],
    ['crash', 502, 'The model server failed (HTTP 500).'],
    ['slow', 504, 'The model server timed out.'],
  ])('maps an upstream "%s" to %s without leaking its body', async (input, status, message) => {
    const e = engine();
    const err = (await e.embed({ inputs: [input] }).catch((x: unknown) => x)) as DomainError;
    expect(err).toBeInstanceOf(DomainError);
    expect([err.status, err.message]).toEqual([status, message]);
    await e.close();
  });

  it('answers 502 when the upstream is unreachable', async () => {
    const e = new OpenAIEmbeddingsEngine({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', timeoutMs: 500, connections: 1, forwardDimensions: false });
    expect(((await e.embed({ inputs: ['x'] }).catch((x: unknown) => x)) as DomainError).status).toBe(502);
    await e.close();
  });
});
