import { AddressInfo, createServer } from 'node:net';
import { ModelDefinition, modelSchema } from '@svc/catalog';
import { ChatMessage } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { ScriptedUpstream, startScriptedUpstream } from '@svc/testing';
import { generateChoices } from '../../src/chat/request/choices';
import { GenerateOptions, GenerateRequest } from '../../src/engines/engine';
import { OpenAICompatibleEngine } from '../../src/engines/upstream/openai-compatible.engine';
import { rendezvousScore } from '../../src/routing/endpoint-picker';
import { imageMessage } from './image-message';

// Upstream routing against local OpenAI-protocol servers (scripted fronts before fake upstreams):
// balancing, prompt_cache_key affinity, retries, circuit breakers, health checks, error mapping.

const SECRET = 'sk-upstream-secret-123';
const request = (over: Partial<GenerateOptions & { messages: ChatMessage[] }> = {}): GenerateRequest => ({
  messages: [{ role: 'user', content: 'Hello there' }],
  maxTokens: 4,
  signal: new AbortController().signal,
  ...over,
});

describe('upstream routing', () => {
  let a: ScriptedUpstream;
  let b: ScriptedUpstream;
  const engines: OpenAICompatibleEngine[] = [];
  const engine = (over: Partial<ConstructorParameters<typeof OpenAICompatibleEngine>[0]> = {}) => {
    const e = new OpenAICompatibleEngine({
      baseUrl: a.baseUrl,
      endpoints: [{ baseUrl: b.baseUrl }],
      model: 'fake-model',
      apiKey: SECRET,
      timeoutMs: 1_000,
      connections: 8,
      retries: 2,
      circuitBreaker: { failureThreshold: 2, cooldownMs: 400 },
      backoff: { baseMs: 20, maxMs: 80 },
      ...over,
    });
    engines.push(e);
    return e;
  };

  beforeEach(async () => {
    [a, b] = await Promise.all([startScriptedUpstream({ completionTokens: 4 }), startScriptedUpstream({ completionTokens: 4 })]);
  });
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.close()));
    await Promise.all([a.close(), b.close()]);
  });

  it('balances concurrent requests by outstanding count', async () => {
    a.inner.configure({ tokenDelayMs: 40 });
    b.inner.configure({ tokenDelayMs: 40 });
    const e = engine();
    await Promise.all(Array.from({ length: 6 }, () => e.generate(request(), () => undefined)));
    expect([a.chatRequests, b.chatRequests]).toEqual([3, 3]);
  });

  it('keeps a prompt_cache_key on one endpoint and spreads different keys', async () => {
    const e = engine();
    for (let i = 0; i < 6; i++) await e.generate(request({ cacheKey: 'conversation-42' }));
    expect([a.chatRequests, b.chatRequests].sort()).toEqual([0, 6]);
    for (let i = 0; i < 40; i++) await e.generate(request({ cacheKey: `user-${i}` }));
    expect(Math.min(a.chatRequests, b.chatRequests)).toBeGreaterThan(5);
  });

  it('retries 502/503 with exponential backoff, and connect errors on the other endpoint', async () => {
    const e = engine({ endpoints: [], retries: 3, circuitBreaker: { failureThreshold: 10, cooldownMs: 400 } });
    a.script({ status: 503 }, { status: 502 }, { status: 503 });
    const started = Date.now();
    const result = await e.generate(request());
    expect(result.completionTokens).toBe(4);
    expect(a.chatRequests).toBe(4);
    // Backoff: at least half of 20, 40 and 80 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);

    const closedPort = `http://127.0.0.1:${await closedPortNumber()}/v1`;
    const refused = engine({ baseUrl: closedPort, endpoints: [{ baseUrl: b.baseUrl }] });
    await refused.generate(request({ cacheKey: keyFor(refused, 'endpoint-1') }));
    expect(b.inner.requests.length).toBe(1);

    // Retries give up after `retries`, with the last failure's status.
    a.script({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    await expect(e.generate(request())).rejects.toMatchObject({ status: 503 });
  });

  it('does not retry a connection dropped before any byte (the request may have run)', async () => {
    const e = engine({ endpoints: [], retries: 3 });
    a.script('destroy');
    await expect(e.generate(request())).rejects.toMatchObject({ code: ErrorCode.Upstream });
    expect(a.chatRequests).toBe(1);
  });

  it('does not retry a 500, a stall or a cut stream, and maps them without leaking the upstream', async () => {
    const e = engine({ endpoints: [], retries: 3, circuitBreaker: { failureThreshold: 10, cooldownMs: 400 } });
    a.script({ status: 500, message: `boom at ${a.url} key ${SECRET}` });
    const failed = await e.generate(request()).catch((err: DomainError) => err);
    expect(failed).toMatchObject({ code: ErrorCode.Upstream, status: 502 });
    expect(a.chatRequests).toBe(1);

    a.inner.configure({ failure: 'hang' });
    const stalled = await e.generate(request()).catch((err: DomainError) => err);
    expect(stalled).toMatchObject({ code: ErrorCode.Timeout });
    expect(a.chatRequests).toBe(2);

    a.inner.configure({ failure: 'drop-mid-stream', dropAfterTokens: 2 });
    const pieces: string[] = [];
    const cut = await e.generate(request(), (p) => void pieces.push(p)).catch((err: DomainError) => err);
    expect(cut).toMatchObject({ code: ErrorCode.Upstream });
    expect(pieces).toHaveLength(2);
    expect(a.chatRequests).toBe(3);

    a.inner.configure({ failure: 'none' });
    a.script({ status: 400, message: `bad field, see http://${a.url.slice(7)}/docs at 10.1.2.3:8000` });
    const bad = await e.generate(request()).catch((err: DomainError) => err);
    expect(bad).toMatchObject({ code: ErrorCode.Validation });
    for (const err of [failed, stalled, cut, bad]) {
      const text = JSON.stringify({ message: (err as DomainError).message, details: (err as DomainError).details });
      expect(text).not.toContain('127.0.0.1');
      expect(text).not.toContain('10.1.2.3');
      expect(text).not.toContain(SECRET);
    }
  });

  it('keeps 429 a rate limit with the retry-after seconds', async () => {
    const e = engine({ endpoints: [] });
    a.script({ status: 429, retryAfter: '7' });
    const err = (await e.generate(request()).catch((x: DomainError) => x)) as DomainError;
    expect(err).toMatchObject({ code: ErrorCode.RateLimited, status: 429, retryAfterSeconds: 7 });
    expect(a.chatRequests).toBe(1);
  });

  it('maps an upstream context_length_exceeded to the OpenAI error', async () => {
    const e = engine({ endpoints: [] });
    a.script({ status: 400, code: 'context_length_exceeded', message: 'too long' });
    const err = (await e.generate(request()).catch((x: DomainError) => x)) as DomainError;
    expect(err.status).toBe(400);
    expect(err.openai).toEqual({ type: 'invalid_request_error', code: 'context_length_exceeded', param: 'messages' });
  });

  it('opens the circuit of a failing endpoint, then tries it again after the cooldown', async () => {
    const e = engine({ retries: 0 });
    const key = keyFor(e, 'endpoint-1');
    a.script({ status: 500 }, { status: 500 });
    await expect(e.generate(request({ cacheKey: key }))).rejects.toMatchObject({ status: 502 });
    await expect(e.generate(request({ cacheKey: key }))).rejects.toMatchObject({ status: 502 });
    expect(e.router.endpoints[0].breaker.state).toBe('open');
    await e.generate(request({ cacheKey: key }));
    expect([a.chatRequests, b.inner.requests.length]).toEqual([2, 1]);
    await new Promise((r) => setTimeout(r, 450));
    await e.generate(request({ cacheKey: key }));
    expect(a.chatRequests).toBe(3);
    expect(e.router.endpoints[0].breaker.state).toBe('closed');
  });

  it('fails fast with 503 when every circuit is open', async () => {
    const e = engine({ endpoints: [], retries: 0, circuitBreaker: { failureThreshold: 1, cooldownMs: 10_000 } });
    a.script({ status: 500 });
    await expect(e.generate(request())).rejects.toMatchObject({ status: 502 });
    await expect(e.generate(request())).rejects.toMatchObject({ status: 503, message: expect.stringMatching(/failing/) });
    expect(a.chatRequests).toBe(1);
  });

  it('routes around an endpoint whose health check fails', async () => {
    const e = engine({ healthCheckIntervalMs: 60_000 });
    a.setHealth(503);
    await e.router.checkHealth();
    expect(e.router.endpoints.map((x) => x.healthy)).toEqual([false, true]);
    for (let i = 0; i < 4; i++) await e.generate(request({ cacheKey: `k${i}` }));
    expect(a.chatRequests).toBe(0);
    a.setHealth(200);
    await e.router.checkHealth();
    expect(e.router.endpoints[0].healthy).toBe(true);
  });

  it('passes content parts, tools, sampling fields and unknown fields through', async () => {
    const e = engine({ endpoints: [] });
    await e.generate(
      request({
        messages: [imageMessage()],
        tools: [{ type: 'function', function: { name: 'f' } }],
        toolChoice: 'auto',
        responseFormat: { type: 'json_object' },
        topK: 3,
        minP: 0.2,
        repetitionPenalty: 1.1,
        logprobs: true,
        topLogprobs: 2,
        cacheKey: 'k',
        passthrough: { logit_bias: { 5: 1 }, model: 'must-not-win' },
      }),
    );
    expect(a.inner.requests.at(-1)!.body).toMatchObject({
      model: 'fake-model',
      // The parts go upstream as the message's content.
      messages: [{ role: 'user', content: imageMessage().parts }],
      tools: [{ type: 'function', function: { name: 'f' } }],
      tool_choice: 'auto',
      response_format: { type: 'json_object' },
      top_k: 3,
      min_p: 0.2,
      repetition_penalty: 1.1,
      logprobs: true,
      top_logprobs: 2,
      prompt_cache_key: 'k',
      logit_bias: { 5: 1 },
    });
  });

  it('answers from a fallback model when the requested one fails before any output', async () => {
    const model = (id: string): ModelDefinition =>
      modelSchema.parse({
        id,
        name: id,
        type: 'text',
        engine: { kind: 'openai-compatible', baseUrl: a.baseUrl, model: 'x' },
        pricing: { input: { usd: 1, diem: 1 }, output: { usd: 1, diem: 1 } },
      });
    const broken = engine({ endpoints: [], retries: 0 });
    const healthy = engine({ baseUrl: b.baseUrl, endpoints: [] });
    a.script({ status: 500 });
    const params = { model: 'primary', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 3 };
    const candidates = [
      { model: model('primary'), engine: () => broken },
      { model: model('backup'), engine: () => healthy },
    ];
    const answered = await generateChoices(candidates, params, new AbortController().signal);
    expect(answered.model.id).toBe('backup');
    expect(answered.results[0].completionTokens).toBe(3);

    // A request error (400) is not passed on to a fallback.
    a.script({ status: 400, message: 'bad' });
    await expect(generateChoices(candidates, params, new AbortController().signal)).rejects.toMatchObject({ status: 400 });
  });
});

async function closedPortNumber(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port as number;
}

/** A prompt_cache_key that rendezvous hashing sends to `id` first. */
function keyFor(engine: OpenAICompatibleEngine, id: string): string {
  for (let i = 0; ; i++) {
    const key = `key-${i}`;
    const scores = engine.router.endpoints.map((e) => ({ id: e.id, score: rendezvousScore(key, e.id) }));
    if (scores.sort((x, y) => y.score - x.score)[0].id === id) return key;
  }
}
