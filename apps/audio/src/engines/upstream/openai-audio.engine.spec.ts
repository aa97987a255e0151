import http from 'node:http';
import { AddressInfo } from 'node:net';
import { DomainError, ErrorCode } from '@svc/errors';
import { OpenAIAudioEngine } from './openai-audio.engine';

interface Seen {
  path: string;
  auth?: string;
  contentType?: string;
  body: Buffer;
}

describe('OpenAIAudioEngine (OpenAI-compatible speech and transcription servers)', () => {
  const seen: Seen[] = [];
  let whisperFields: Record<string, unknown> = {};
  let status = 200;
  let errorMessage = 'voice not found';
  let retryAfter: string | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization, contentType: req.headers['content-type'], body: Buffer.concat(chunks) });
      if (status !== 200) {
        res.writeHead(status, { 'content-type': 'application/json', ...(retryAfter ? { 'retry-after': retryAfter } : {}) });
        res.end(JSON.stringify({ error: { message: errorMessage } }));
      } else if (req.url === '/v1/audio/speech') {
        res.writeHead(200, { 'content-type': 'audio/mpeg' });
        res.write(Buffer.from([1, 2, 3]));
        setTimeout(() => res.end(Buffer.from([4, 5])), 20);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            text: ' hello world ',
            language: 'english',
            duration: 1.5,
            words: [{ word: ' hello', start: 0, end: 0.5 }],
            segments: [{ id: 0, text: ' hello world', start: 0, end: 1.5, ...whisperFields }],
          }),
        );
      }
    });
  });
  let engine: OpenAIAudioEngine;
  let origin = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    origin = `127.0.0.1:${port}`;
    engine = new OpenAIAudioEngine({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'kokoro', apiKey: 'secret', timeoutMs: 5_000, connections: 2 });
  });
  afterAll(async () => {
    await engine.close();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    status = 200;
    errorMessage = 'voice not found';
    retryAfter = undefined;
    whisperFields = {};
  });

  it('sends speech requests with the upstream model name and returns the bytes, streamed or whole', async () => {
    const whole = await engine.speak({ input: 'Hi there', voice: 'af_sky', format: 'mp3', speed: 1.5, signal: new AbortController().signal });
    expect([...whole.audio]).toEqual([1, 2, 3, 4, 5]);
    expect(whole.characters).toBe(8);
    expect(seen[0].auth).toBe('Bearer secret');
    expect(JSON.parse(seen[0].body.toString())).toEqual({ model: 'kokoro', input: 'Hi there', voice: 'af_sky', response_format: 'mp3', speed: 1.5 });

    const chunks: number[][] = [];
    const streamed = await engine.speak({ input: 'Hi', voice: 'af_sky', format: 'mp3', speed: 1, signal: new AbortController().signal }, async (c) => {
      chunks.push([...c]);
    });
    expect(streamed.audio.length).toBe(0);
    expect(chunks.flat()).toEqual([1, 2, 3, 4, 5]);
  });

  it('sends the file as multipart with verbose_json and maps words and segments', async () => {
    const result = await engine.transcribe({
      audio: Buffer.from('RIFF....'),
      durationMs: 1500,
      language: 'en',
      timestamps: true,
      signal: new AbortController().signal,
    });
    expect(result).toEqual({
      text: 'hello world',
      language: 'english',
      words: [{ word: 'hello', start: 0, end: 0.5 }],
      segments: [{ text: 'hello world', start: 0, end: 1.5 }],
    });
    expect(seen[0].path).toBe('/v1/audio/transcriptions');
    expect(seen[0].contentType).toMatch(/^multipart\/form-data/);
    const body = seen[0].body.toString();
    expect(body).toContain('verbose_json');
    expect(body).toContain('timestamp_granularities[]');
    expect(body).toContain('kokoro');
  });

  it('passes instructions, translates at /audio/translations (no language) keeping Whisper segment fields, and clones at /voices', async () => {
    await engine.speak({ input: 'Hi', voice: 'af_sky', format: 'mp3', speed: 1, instructions: 'Calm.', signal: new AbortController().signal });
    expect(JSON.parse(seen[0].body.toString())).toMatchObject({ instructions: 'Calm.' });

    whisperFields = { seek: 0, tokens: [50364, 2425], temperature: 0, avg_logprob: -0.2, compression_ratio: 1.1, no_speech_prob: 0.01 };
    const translated = await engine.transcribe({
      audio: Buffer.from('RIFF....'),
      durationMs: 1500,
      language: 'fr',
      timestamps: true,
      task: 'translate',
      signal: new AbortController().signal,
    });
    expect(seen[1].path).toBe('/v1/audio/translations');
    expect(seen[1].body.toString()).not.toMatch(/name="language"|timestamp_granularities/);
    expect(translated.language).toBe('en');
    expect(translated.segments).toEqual([{ text: 'hello world', start: 0, end: 1.5, ...whisperFields }]);

    await engine.cloneVoice(Buffer.from('RIFFsample'), 'vv_0123', new AbortController().signal);
    expect(seen[2].path).toBe('/v1/voices');
    expect(seen[2].body.toString()).toMatch(/name="voice_name"\r\n\r\nvv_0123/);
    expect(seen[2].body.toString()).toMatch(/name="voice_file"[^]*RIFFsample/);
  });

  it('turns an upstream 400 into a validation error with its message, and an unreachable server into 502', async () => {
    status = 400;
    const err = await engine.speak({ input: 'Hi', voice: 'x', format: 'mp3', speed: 1, signal: new AbortController().signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe(ErrorCode.Validation);
    expect((err as DomainError).message).toMatch(/voice not found/);

    const down = new OpenAIAudioEngine({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', timeoutMs: 2_000, connections: 1 });
    const err2 = await down
      .transcribe({ audio: Buffer.from('x'), durationMs: 1, timestamps: false, signal: new AbortController().signal })
      .catch((e: unknown) => e);
    expect((err2 as DomainError).code).toBe(ErrorCode.Upstream);
    await down.close();
  });

  it('maps failures like every engine kind (@svc/upstream): 429 stays 429 with retry-after, 503 is 503, 401 is 502, a 400 is scrubbed', async () => {
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => new DomainError(ErrorCode.Internal, 'no failure'),
        (e: unknown) => e as DomainError,
      );
    const speak = () => failure(engine.speak({ input: 'Hi', voice: 'x', format: 'mp3', speed: 1, signal: new AbortController().signal }));
    const transcribe = () => failure(engine.transcribe({ audio: Buffer.from('x'), durationMs: 1, timestamps: false, signal: new AbortController().signal }));
    status = 429;
    retryAfter = '4';
    for (const err of [await speak(), await transcribe()]) expect([err.status, err.retryAfterSeconds]).toEqual([429, 4]);
    retryAfter = undefined;
    status = 503;
    expect((await speak()).status).toBe(503);
    status = 401;
    expect((await transcribe()).status).toBe(502);
    status = 400;
    errorMessage = `unknown voice, see http://${origin}/voices or ${origin} with key secret`;
    const bad = await speak();
    expect([bad.status, bad.message]).toEqual([400, 'The audio server rejected the request: unknown voice, see [url] or [address] with key [key]']);
  });
});
