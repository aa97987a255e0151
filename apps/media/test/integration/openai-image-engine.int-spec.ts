import http from 'node:http';
import { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { DomainError, ErrorCode } from '@svc/errors';
import { OpenAiImageEngine } from '../../src/engines/upstream/openai-image.engine';

// The OpenAI-compatible image adapter against a local fake image server.
describe('OpenAiImageEngine', () => {
  let server: http.Server;
  let baseUrl: string;
  const seen: Array<{ path: string; contentType: string; body: string; auth?: string }> = [];
  let answer: { status: number; body: unknown } | null = null;

  beforeAll(async () => {
    const png = (
      await sharp({ create: { width: 64, height: 32, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } } })
        .png()
        .toBuffer()
    ).toString('base64');
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          path: req.url ?? '',
          contentType: req.headers['content-type'] ?? '',
          body: Buffer.concat(chunks).toString('latin1'),
          auth: req.headers.authorization,
        });
        const reply = answer ?? { status: 200, body: { created: 1, data: [{ b64_json: png }] } };
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    seen.length = 0;
    answer = null;
  });

  const engine = (over: Partial<ConstructorParameters<typeof OpenAiImageEngine>[0]> = {}) =>
    new OpenAiImageEngine({ baseUrl, model: 'up-model', apiKey: 'sk-test', timeoutMs: 5_000, ...over });

  it('generates through /images/generations and decodes the answer to RGB', async () => {
    const out = await engine().generate({ prompt: 'a cat', width: 512, height: 256, seed: 5, negativePrompt: 'dog' });
    expect([out.width, out.height, out.rgb.length]).toEqual([64, 32, 64 * 32 * 3]);
    expect(Array.from(out.rgb.subarray(0, 3))).toEqual([255, 0, 0]);
    expect(seen[0].path).toBe('/v1/images/generations');
    expect(seen[0].auth).toBe('Bearer sk-test');
    expect(JSON.parse(seen[0].body)).toMatchObject({
      model: 'up-model',
      prompt: 'a cat',
      size: '512x256',
      response_format: 'b64_json',
      seed: 5,
      negative_prompt: 'dog',
    });
  });

  it('edits through /images/edits with the image as a multipart PNG', async () => {
    const init = { data: new Uint8Array(16 * 16 * 3).fill(200), width: 16, height: 16, channels: 3 as const };
    await engine().generate({ prompt: 'make it red', init });
    expect(seen[0].path).toBe('/v1/images/edits');
    expect(seen[0].contentType).toMatch(/^multipart\/form-data/);
    expect(seen[0].body).toContain('make it red');
    expect(seen[0].body).toContain('\x89PNG');
  });

  it('maps upstream failures without revealing where the upstream is', async () => {
    answer = { status: 400, body: { error: { message: 'bad size, see https://internal.example/docs' } } };
    const bad = await engine()
      .generate({ prompt: 'x' })
      .catch((e: unknown) => e as DomainError);
    expect(bad).toBeInstanceOf(DomainError);
    expect((bad as DomainError).code).toBe(ErrorCode.Validation);
    expect((bad as DomainError).message).toBe('The image server rejected the request: bad size, see [url]');
    answer = { status: 500, body: {} };
    expect(
      (
        (await engine()
          .generate({ prompt: 'x' })
          .catch((e: unknown) => e)) as DomainError
      ).code,
    ).toBe(ErrorCode.Upstream);
    answer = { status: 503, body: {} };
    expect(
      (
        (await engine()
          .generate({ prompt: 'x' })
          .catch((e: unknown) => e)) as DomainError
      ).code,
    ).toBe(ErrorCode.ServiceUnavailable);
    answer = { status: 200, body: { data: [] } };
    expect(
      (
        (await engine()
          .generate({ prompt: 'x' })
          .catch((e: unknown) => e)) as DomainError
      ).message,
    ).toMatch(/without an image/);
    const unreachable = (await engine({ baseUrl: 'http://127.0.0.1:1/v1' })
      .generate({ prompt: 'x' })
      .catch((e: unknown) => e)) as DomainError;
    expect([unreachable.code, unreachable.message]).toEqual([ErrorCode.Upstream, 'The image server is unreachable.']);
  });
});
