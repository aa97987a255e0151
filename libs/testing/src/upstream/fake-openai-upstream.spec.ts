import OpenAI from 'openai';
import { FakeOpenAiUpstream, RunningFakeUpstream } from './fake-openai-upstream';

// Talks to the fake over loopback only: it is a server, so its behaviour is what goes over the wire.
describe('FakeOpenAiUpstream', () => {
  let upstream: FakeOpenAiUpstream;
  let running: RunningFakeUpstream;
  let client: OpenAI;

  beforeEach(async () => {
    upstream = new FakeOpenAiUpstream({ completionTokens: 4 });
    running = await upstream.start();
    client = new OpenAI({ baseURL: running.baseUrl, apiKey: 'test-key', maxRetries: 0 });
  });
  afterEach(() => running.close());

  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: [{ type: 'text', text: 'count  to three' }] },
  ];
  const post = (body: object, init: RequestInit = {}) =>
    fetch(`${running.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...init });

  it('answers a non-streaming completion the official SDK accepts, with honest usage', async () => {
    const completion = await client.chat.completions.create({ model: 'any-model', messages });

    expect(completion.model).toBe('any-model');
    expect(completion.choices[0].message.content).toBe('tok0 tok1 tok2 tok3');
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
  });

  it('stops at max_tokens with finish_reason length', async () => {
    const completion = await client.chat.completions.create({ model: 'm', messages, max_tokens: 2 });

    expect(completion.choices[0].message.content).toBe('tok0 tok1');
    expect(completion.choices[0].finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(2);
  });

  it('streams chat.completion.chunk events with a usage chunk, then [DONE]', async () => {
    const stream = await client.chat.completions.create({ model: 'm', messages, stream: true, stream_options: { include_usage: true } });
    let text = '';
    const finishes: (string | null)[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }

    expect(text).toBe('tok0 tok1 tok2 tok3');
    expect(finishes.at(-1)).toBe('stop');
    expect(usage).toEqual({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
    const raw = await (await post({ model: 'm', messages, stream: true })).text();
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(raw).not.toContain('"usage"');
  });

  it('continues a raw prompt on the legacy /v1/completions, plain and streamed, with legacy logprobs and honest usage', async () => {
    const completion = await client.completions.create({ model: 'm', prompt: 'Once upon a time', max_tokens: 3, logprobs: 2 });
    expect(completion).toMatchObject({ object: 'text_completion', model: 'm', usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 } });
    expect(completion.choices[0]).toMatchObject({ text: 'tok0 tok1 tok2', finish_reason: 'length' });
    expect(completion.choices[0].logprobs).toEqual({
      tokens: ['tok0', ' tok1', ' tok2'],
      token_logprobs: [-0.25, -0.5, -0.75],
      top_logprobs: [
        { tok0: -0.25, ' alt0': -1.25 },
        { ' tok1': -0.5, ' alt0': -1.5 },
        { ' tok2': -0.75, ' alt0': -1.75 },
      ],
      text_offset: [16, 20, 25],
    });
    expect(upstream.requests.at(-1)!.path).toBe('/v1/completions');

    const stream = await client.completions.create({ model: 'm', prompt: 'Once upon a time', stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.Completion[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.text ?? '').join('')).toBe('tok0 tok1 tok2 tok3');
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 4, completion_tokens: 4, total_tokens: 8 });
    const refused = await fetch(`${running.baseUrl}/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', prompt: ['a', 'b'] }) });
    expect(refused.status).toBe(400);
  });

  it('counts a raw prompt on its tokenizers as its completions count it', async () => {
    const tokenize = async (body: object) =>
      (await (await fetch(`${running.url}/tokenize`, { method: 'POST', body: JSON.stringify(body) })).json()) as { count?: number; tokens: number[] };
    expect((await tokenize({ model: 'm', prompt: 'Once upon a time', add_special_tokens: true })).count).toBe(4);
    expect((await tokenize({ content: 'Once upon a time', add_special: true })).tokens).toHaveLength(4);
  });

  it('lists its models', async () => {
    upstream.configure({ models: ['a', 'b'] });
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toEqual(['a', 'b']);
  });

  it('records method, path, headers and parsed body', async () => {
    await client.chat.completions.create({ model: 'm', messages });
    await fetch(`${running.url}/v1/models?x=1`);

    expect(upstream.requests).toHaveLength(2);
    const [chat, models] = upstream.requests;
    expect(chat).toMatchObject({ method: 'POST', path: '/v1/chat/completions', outcome: 'completed', body: { model: 'm', messages } });
    expect(chat.headers.authorization).toBe('Bearer test-key');
    expect(models).toMatchObject({ method: 'GET', path: '/v1/models', body: undefined });
  });

  it('keeps only the last recordLimit requests but counts them all', async () => {
    upstream.configure({ recordLimit: 1 });
    await fetch(`${running.url}/v1/models`);
    await post({ model: 'last', messages });

    expect(upstream.requestCount).toBe(2);
    expect(upstream.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
  });

  it('rejects a wrong API key when one is configured', async () => {
    upstream.configure({ apiKey: 'right' });
    await expect(client.chat.completions.create({ model: 'm', messages })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('answers 400 for a body it cannot use and 404 for unknown paths', async () => {
    const notJson = await fetch(`${running.baseUrl}/chat/completions`, { method: 'POST', body: '{nope' });
    const noMessages = await post({ model: 'm', messages: [] });
    const unknown = await fetch(`${running.url}/v2/else`);

    expect([notJson.status, noMessages.status, unknown.status]).toEqual([400, 400, 404]);
    expect(((await noMessages.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
  });

  it('fails with 500, and with 429 plus retry-after, for the configured number of requests', async () => {
    upstream.configure({ failure: 'http-500' });
    expect((await post({ model: 'm', messages })).status).toBe(500);

    upstream.configure({ failure: 'http-429', failureTimes: 1, retryAfterSeconds: 7 });
    const limited = await post({ model: 'm', messages });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    expect((await post({ model: 'm', messages })).status).toBe(200);
  });

  it('hangs without answering, and close() still returns promptly', async () => {
    upstream.configure({ failure: 'hang' });
    await expect(post({ model: 'm', messages }, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    expect(upstream.requests[0].outcome).toBe('hung');

    const pending = post({ model: 'm', messages });
    pending.catch(() => undefined);
    await waitFor(() => upstream.requestCount === 2);
    const started = Date.now();
    await running.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(pending).rejects.toThrow();
  });

  it('sends malformed JSON, streaming or not', async () => {
    upstream.configure({ failure: 'malformed-json' });
    const plain = await post({ model: 'm', messages });
    expect(plain.status).toBe(200);
    await expect(plain.json()).rejects.toThrow(/JSON/);

    const raw = await (await post({ model: 'm', messages, stream: true })).text();
    const events = raw.split('\n\n').filter(Boolean);
    const broken = events.filter((e) => e !== 'data: [DONE]' && !isJson(e.slice('data: '.length)));
    expect(broken).toHaveLength(1);
    expect(events.at(-1)).toBe('data: [DONE]');
  });

  it('drops the connection mid-stream after the configured tokens, or before answering', async () => {
    upstream.configure({ failure: 'drop-mid-stream', dropAfterTokens: 2 });
    const res = await post({ model: 'm', messages, stream: true });
    let received = '';
    const read = (async () => {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) received += Buffer.from(chunk).toString('utf8');
    })();

    await expect(read).rejects.toThrow();
    expect(received).toContain('tok1');
    expect(received).not.toContain('tok2');
    expect(received).not.toContain('[DONE]');
    expect(upstream.requests[0].outcome).toBe('dropped');
    await expect(post({ model: 'm', messages })).rejects.toThrow();
  });

  it('waits the first-token delay before the first body byte, then paces tokens', async () => {
    upstream.configure({ firstTokenDelayMs: 300, tokenDelayMs: 30 });
    const started = performance.now();
    const res = await post({ model: 'm', messages, stream: true });
    const headersAt = performance.now() - started;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const firstByteAt = performance.now() - started;
    while (!(await reader.read()).done);
    const doneAt = performance.now() - started;

    expect(headersAt).toBeLessThan(250);
    expect(firstByteAt).toBeGreaterThanOrEqual(295);
    expect(doneAt - firstByteAt).toBeGreaterThanOrEqual(85);
  });

  it('marks a stream the client abandoned as client-aborted', async () => {
    upstream.configure({ completionTokens: 1_000, tokenDelayMs: 5 });
    const controller = new AbortController();
    const res = await post({ model: 'm', messages, stream: true }, { signal: controller.signal });
    await (res.body as ReadableStream<Uint8Array>).getReader().read();
    controller.abort();

    await waitFor(() => upstream.requests[0].outcome !== 'pending');
    expect(upstream.requests[0].outcome).toBe('client-aborted');
  });
});

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
