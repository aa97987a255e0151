import { createServer, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { ErrorCode } from '@svc/errors';
import { startFakeOpenAiUpstream } from '@svc/testing';
import { GenerateOptions, GenerationAbortedError } from '../../src/engines/engine';
import { OpenAICompatibleEngine } from '../../src/engines/upstream/openai-compatible.engine';

type Upstream = Awaited<ReturnType<typeof startFakeOpenAiUpstream>>;

describe('OpenAICompatibleEngine against an OpenAI-protocol server', () => {
  let server: Upstream;
  let engine: OpenAICompatibleEngine;
  const request = (overrides: Partial<GenerateOptions> = {}) => ({
    messages: [{ role: 'user' as const, content: 'Hello' }],
    maxTokens: 5,
    signal: new AbortController().signal,
    ...overrides,
  });

  beforeAll(async () => {
    server = await startFakeOpenAiUpstream({ completionTokens: 5, apiKey: 'upstream-secret' });
    engine = new OpenAICompatibleEngine({ baseUrl: server.baseUrl, model: 'fake-model', apiKey: 'upstream-secret', timeoutMs: 1_000, connections: 4 });
  });
  afterAll(async () => {
    await engine.close();
    await server.close();
  });
  beforeEach(() => server.upstream.configure({ failure: 'none', tokenDelayMs: 0, firstTokenDelayMs: 0 }));

  it('forwards parameters and returns text with the upstream usage', async () => {
    const result = await engine.generate(request({ temperature: 0.5, topP: 0.9, stop: ['\n'], seed: 7 }));
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.completionTokens).toBe(5);
    expect(result.promptTokens).toBeGreaterThan(0);
    const sent = server.upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer upstream-secret');
    expect(sent.body).toMatchObject({ model: 'fake-model', max_tokens: 5, temperature: 0.5, top_p: 0.9, stop: ['\n'], seed: 7, stream: false });
  });

  it('streams pieces that add up to the text, with usage from the final chunk', async () => {
    const pieces: string[] = [];
    const result = await engine.generate(request(), (t) => void pieces.push(t));
    expect(pieces.length).toBe(5);
    expect(pieces.join('')).toBe(result.text);
    expect(result.completionTokens).toBe(5);
    expect(server.upstream.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('runs a raw prompt on the server’s /completions: its text, finish reason, usage and legacy log probabilities, plain and streamed', async () => {
    const raw = {
      prompt: 'Once upon a time',
      maxTokens: 3,
      temperature: 0.5,
      stop: ['\n'],
      seed: 7,
      logprobs: true,
      topLogprobs: 2,
      signal: new AbortController().signal,
    };
    const result = await engine.generate(raw);
    expect(result).toMatchObject({ text: 'tok0 tok1 tok2', finishReason: 'length', promptTokens: 4, completionTokens: 3 });
    expect(result.logprobs?.content).toEqual([
      { token: 'tok0', logprob: -0.25, bytes: null, top_logprobs: [expect.objectContaining({ token: 'tok0', logprob: -0.25 }), expect.anything()] },
      expect.objectContaining({ token: ' tok1', logprob: -0.5 }),
      expect.objectContaining({ token: ' tok2', logprob: -0.75 }),
    ]);
    const sent = server.upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/completions');
    // The legacy API's logprobs is the number of alternatives; there are no messages, no chat template.
    expect(sent.body).toMatchObject({
      model: 'fake-model',
      prompt: 'Once upon a time',
      max_tokens: 3,
      temperature: 0.5,
      stop: ['\n'],
      seed: 7,
      logprobs: 2,
      stream: false,
    });
    expect(sent.body).not.toHaveProperty('messages');
    expect(sent.body).not.toHaveProperty('top_logprobs');

    const pieces: string[] = [];
    const streamed = await engine.generate({ ...raw, maxTokens: 5 }, (t) => void pieces.push(t));
    expect(pieces).toEqual(['tok0', ' tok1', ' tok2', ' tok3', ' tok4']);
    expect(streamed).toMatchObject({ text: 'tok0 tok1 tok2 tok3 tok4', finishReason: 'stop', promptTokens: 4, completionTokens: 5 });
    expect(streamed.logprobs?.content?.map((e) => e.token)).toEqual(pieces);
    expect(server.upstream.requests.at(-1)!.body).toMatchObject({ prompt: 'Once upon a time', stream: true, stream_options: { include_usage: true } });
  });

  it('counts a raw prompt on the server’s tokenizer as its /completions counts it (with the margin), and a chat prompt under its template', async () => {
    for (const tokenize of ['vllm', 'llama-cpp'] as const) {
      const counted = new OpenAICompatibleEngine({
        baseUrl: server.baseUrl,
        model: 'fake-model',
        apiKey: 'upstream-secret',
        timeoutMs: 1_000,
        connections: 1,
        tokenize,
      });
      const run = await counted.generate({ prompt: 'Once upon a time', maxTokens: 1, signal: new AbortController().signal });
      // 4 words, plus 2% and 8 tokens (UPSTREAM_COUNT_MARGIN): never less than the run counts.
      expect(await counted.countPromptTokens('Once upon a time')).toBe(Math.ceil(run.promptTokens * 1.02) + 8);
      expect(await counted.countPromptTokens([{ role: 'user', content: 'Once upon a time' }])).toBe(Math.ceil(4 * 1.02) + 8);
      await counted.close();
    }
  });

  it('maps upstream failures to clear errors', async () => {
    server.upstream.configure({ failure: 'http-500' });
    await expect(engine.generate(request())).rejects.toMatchObject({ code: ErrorCode.Upstream });
    server.upstream.configure({ failure: 'http-429' });
    await expect(engine.generate(request())).rejects.toMatchObject({ code: ErrorCode.RateLimited, retryAfterSeconds: 1 });
    server.upstream.configure({ failure: 'hang' });
    await expect(engine.generate(request())).rejects.toMatchObject({ code: ErrorCode.Timeout });
    server.upstream.configure({ failure: 'malformed-json' });
    await expect(engine.generate(request())).rejects.toMatchObject({ code: ErrorCode.Upstream });
  });

  it('fails a stream that the upstream drops midway instead of ending it silently', async () => {
    server.upstream.configure({ failure: 'drop-mid-stream' });
    await expect(engine.generate(request(), () => undefined)).rejects.toMatchObject({ code: ErrorCode.Upstream });
  });

  it('stops the upstream request when the caller aborts', async () => {
    server.upstream.configure({ tokenDelayMs: 100 });
    const controller = new AbortController();
    const pieces: string[] = [];
    const pending = engine.generate(request({ signal: controller.signal }), (t) => {
      pieces.push(t);
      if (pieces.length === 1) controller.abort();
    });
    await expect(pending).rejects.toBeInstanceOf(GenerationAbortedError);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.upstream.requests.at(-1)!.outcome).toBe('client-aborted');
  });

  describe('a streamed body after its [DONE]', () => {
    const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const done = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2 } })}\n\ndata: [DONE]\n\n`;
    let raw: Server;
    let connections: Socket[];
    let holdOpen: boolean;
    let rawEngine: OpenAICompatibleEngine;
    beforeAll(async () => {
      raw = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(chunk('Hi') + chunk(' there') + done);
          if (!holdOpen) res.end();
        });
      });
      raw.on('connection', (socket) => connections.push(socket));
      await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
      rawEngine = new OpenAICompatibleEngine({
        baseUrl: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`,
        model: 'm',
        timeoutMs: 10_000,
        connections: 1,
      });
    });
    beforeEach(() => {
      connections = [];
      holdOpen = false;
    });
    afterAll(async () => {
      await rawEngine.close();
      raw.closeAllConnections();
      await new Promise((resolve) => raw.close(resolve));
    });

    it('is read to its end, so the next stream reuses the connection', async () => {
      for (let i = 0; i < 3; i++) expect((await rawEngine.generate(request(), () => undefined)).text).toBe('Hi there');
      expect(connections).toHaveLength(1);
    });

    it('is cut a while after [DONE] when the server never ends it: the answer is complete at once, and the connection is freed', async () => {
      holdOpen = true;
      const started = Date.now();
      expect((await rawEngine.generate(request(), () => undefined)).text).toBe('Hi there');
      expect(Date.now() - started).toBeLessThan(1_000);
      // One connection in the pool: the next request is answered once the held one is cut (about 2 s).
      holdOpen = false;
      expect((await rawEngine.generate(request(), () => undefined)).text).toBe('Hi there');
    });
  });

  it('reports an unreachable server as 502-class error', async () => {
    const dead = new OpenAICompatibleEngine({ baseUrl: 'http://127.0.0.1:9/v1', model: 'x', timeoutMs: 500, connections: 1 });
    await expect(dead.generate(request())).rejects.toMatchObject({ code: ErrorCode.Upstream });
    await dead.close();
  });
});
