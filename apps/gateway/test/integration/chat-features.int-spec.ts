import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { writeTinyGguf } from '@svc/gguf';
import { ScriptedUpstream, startScriptedUpstream } from '@svc/testing';
import { ChatStack, startChatStack } from './support/chat-stack';
import { ApiAnswer, chunksOf, streamedText } from './support/chat-http';

/**
 * Request features OpenAI clients use and upstream routing, through a gateway process: private
 * NATS and Redis, fresh keys and chat databases, the keys and chat services from sources, the
 * tiny random-weight GGUF on the embedded engine, and scripted OpenAI-protocol upstreams.
 */
const CATALOG = `
models:
  - id: tiny
    name: Tiny (embedded)
    type: text
    engine: { kind: embedded-llama, file: tiny.gguf, contextSize: 512, maxParallel: 1, maxQueue: 8 }
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    availableContextTokens: 512
    maxCompletionTokens: 120
    capabilities: { supportsResponseSchema: true, supportsFunctionCalling: true, supportsLogProbs: true, supportsVision: false }
  - id: up-vision
    name: Upstream with vision, two endpoints
    type: text
    engine:
      kind: openai-compatible
      baseUrl: "\${FEAT_UP_A}"
      endpoints: [{ baseUrl: "\${FEAT_UP_B}" }]
      model: vision-upstream
      timeoutMs: 3000
      retries: 2
      healthCheckIntervalMs: 0
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    maxCompletionTokens: 64
    capabilities: { supportsVision: true, supportsFunctionCalling: true }
  - id: up-flaky
    name: Upstream that fails
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${FEAT_UP_C}", model: flaky-upstream, timeoutMs: 3000, retries: 0 }
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    maxCompletionTokens: 64
`;

let stack: ChatStack;
let api: string;
let key: string;
let modelsDir: string;
let upA: ScriptedUpstream;
let upB: ScriptedUpstream;
let upC: ScriptedUpstream;

beforeAll(async () => {
  modelsDir = mkdtempSync(path.join(os.tmpdir(), 'svc-features-models-'));
  writeTinyGguf(path.join(modelsDir, 'tiny.gguf'));
  [upA, upB, upC] = await Promise.all([1, 2, 3].map(() => startScriptedUpstream({ completionTokens: 5 })));
  stack = await startChatStack({
    name: 'feat',
    catalog: CATALOG,
    env: { FEAT_UP_A: upA.baseUrl, FEAT_UP_B: upB.baseUrl, FEAT_UP_C: upC.baseUrl },
    chatEnv: { CHAT_SEED_CHARACTERS: 'false', SVC_MODELS_DIR: modelsDir, SVC_SYSTEM_PROMPT: 'Be brief.' },
  });
  ({ api, inferenceKey: key } = stack);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  for (const up of [upA, upB, upC]) await up?.close();
  rmSync(modelsDir, { recursive: true, force: true });
}, 60_000);

const chat = (body: Record<string, unknown>): Promise<ApiAnswer> =>
  stack.request('/chat/completions', { body: { model: 'tiny', messages: [{ role: 'user', content: 'Describe a city.' }], max_tokens: 16, seed: 5, ...body } });

const personSchema = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 10 }, score: { type: 'number' }, ok: { type: 'boolean' } },
  required: ['name', 'score', 'ok'],
  additionalProperties: false,
};

describe('request features on the embedded engine', () => {
  it('response_format json_schema: the answer parses and matches the schema, streamed or not', async () => {
    const personFormat = { type: 'json_schema', json_schema: { name: 'person', schema: personSchema } };
    const plain = await chat({ max_tokens: 100, response_format: personFormat });
    expect(plain.status).toBe(200);
    const value = JSON.parse(plain.body.choices[0].message.content);
    expect(Object.keys(value).sort()).toEqual(['name', 'ok', 'score']);
    expect([typeof value.name, typeof value.score, typeof value.ok]).toEqual(['string', 'number', 'boolean']);

    const streamed = await chat({ stream: true, max_tokens: 100, response_format: personFormat });
    expect(Object.keys(JSON.parse(streamedText(chunksOf(streamed.body)))).sort()).toEqual(['name', 'ok', 'score']);
  });

  it('tools with a forced call answer tool_calls (and a tool_calls delta when streaming), via the OpenAI SDK', async () => {
    const client = new OpenAI({ baseURL: api, apiKey: key, maxRetries: 0 });
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string', maxLength: 12 } }, required: ['q'] } } },
    ];
    const forced: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: 'tiny',
      messages: [{ role: 'user', content: 'Find it' }],
      tools,
      tool_choice: 'required',
      max_tokens: 60,
    };
    const completion = await client.chat.completions.create(forced);
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageToolCall & { function: { name: string; arguments: string } };
    expect(call.function.name).toBe('lookup');
    expect(typeof JSON.parse(call.function.arguments).q).toBe('string');

    const stream = await client.chat.completions.create({ ...forced, stream: true });
    const deltas: any[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.tool_calls) deltas.push(...chunk.choices[0].delta.tool_calls);
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(deltas[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'lookup' } });

    // The tool result goes back in; `auto` then answers in text.
    const answer = await client.chat.completions.create({
      model: 'tiny',
      messages: [
        { role: 'user', content: 'Find it' },
        choice.message as OpenAI.Chat.ChatCompletionMessageParam,
        { role: 'tool', tool_call_id: call.id, content: 'found' },
      ],
      tools,
      max_tokens: 5,
    });
    expect(answer.choices[0].finish_reason).not.toBe('tool_calls');
    expect(answer.choices[0].message.content?.length).toBeGreaterThan(0);
  });

  it('n, seed, stop, penalties, top_k, min_p and logprobs', async () => {
    const sampling = { n: 2, max_tokens: 6, temperature: 1, top_k: 20, min_p: 0.01, presence_penalty: 0.5, frequency_penalty: 0.5, repetition_penalty: 1.2 };
    const answer = await chat({ ...sampling, logprobs: true, top_logprobs: 2 });
    expect(answer.status).toBe(200);
    expect(answer.body.choices.map((c: any) => c.index)).toEqual([0, 1]);
    for (const c of answer.body.choices) {
      expect(c.logprobs.content.length).toBeGreaterThan(0);
      expect(c.logprobs.content[0].top_logprobs).toHaveLength(2);
    }
    // The same seed and sampling without logprobs: the same texts.
    const again = await chat(sampling);
    expect(again.body.choices.map((c: any) => c.message.content)).toEqual(answer.body.choices.map((c: any) => c.message.content));
    // The prompt counts once, the completions add up.
    expect(again.body.usage.completion_tokens).toBeLessThanOrEqual(12);

    const streamed = await chat({ n: 2, max_tokens: 4, stream: true });
    const chunks = chunksOf(streamed.body);
    expect(new Set(chunks.flatMap((c) => c.choices.map((x: any) => x.index)))).toEqual(new Set([0, 1]));
    expect(chunks.filter((c) => c.choices[0]?.finish_reason).length).toBe(2);
  });

  it('caps max_tokens at the model maxCompletionTokens', async () => {
    const answer = await chat({ max_tokens: 5000, messages: [{ role: 'user', content: 'Go on.' }] });
    expect(answer.status).toBe(200);
    expect(answer.body.usage.completion_tokens).toBeLessThanOrEqual(120);
  });

  it('prompt_cache_key: the second turn reuses the evaluated prefix and reports cached_tokens', async () => {
    const history = [
      { role: 'system', content: 'You keep a long, careful record of every book in the old library. '.repeat(4) },
      { role: 'user', content: 'Tell me about the first shelf.' },
    ];
    const first = await chat({ messages: history, max_tokens: 4, prompt_cache_key: 'conv-a' });
    const second = await chat({
      messages: [...history, { role: 'assistant', content: first.body.choices[0].message.content }, { role: 'user', content: 'And the next?' }],
      max_tokens: 4,
      prompt_cache_key: 'conv-a',
    });
    expect(second.body.usage.prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(first.body.usage.prompt_tokens - 2);
    expect(second.body.usage.prompt_tokens).toBeGreaterThan(first.body.usage.prompt_tokens);
  });

  it('a prompt over the context is a 400 context_length_exceeded in OpenAI shape, streamed or not', async () => {
    const long = [{ role: 'user', content: 'word '.repeat(700) }];
    for (const stream of [false, true]) {
      const answer = await chat({ messages: long, stream });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' });
      expect(answer.body.error.message).toMatch(/maximum context length is 512 tokens. However, your messages resulted in \d+ tokens/);
      expect(answer.headers.get('cf-ray')).toBeTruthy();
    }
  });

  it.each([
    [{ top_k: -1 }, 'top_k'],
    [{ presence_penalty: 3 }, 'presence_penalty'],
    [{ repetition_penalty: 0 }, 'repetition_penalty'],
    [{ min_p: 2 }, 'min_p'],
    [{ n: 20 }, 'n'],
    [{ top_logprobs: 2 }, 'top_logprobs'],
    [{ tool_choice: 'required' }, 'tool_choice'],
    [{ messages: [{ role: 'user', content: [{ type: 'audio_file', data: 'x' }] }] }, 'messages'],
    [
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } },
            ],
          },
        ],
      },
      'image input',
    ],
    [{ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } }] }] }, 'audio input'],
    [{ messages: [{ role: 'user', content: [{ type: 'video_url', video_url: { url: 'https://example.com/v.mp4' } }] }] }, 'video input'],
    [
      { response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'strange' } } } } } },
      'response_format',
    ],
  ])('answers 400 for %j (%s)', async (over, field) => {
    const answer = await chat(over);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual(expect.stringContaining(field));
  });
});

describe('upstream engines and routing through the gateway', () => {
  beforeEach(() => {
    for (const up of [upA, upB, upC]) up.inner.configure({ failure: 'none', tokenDelayMs: 0 });
  });

  it('passes image parts, tools and unknown fields through to the upstream', async () => {
    const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } };
    const answer = await chat({
      model: 'up-vision',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is it?' }, image] }],
      vendor_flag: 'x',
      top_k: 7,
      tools: [{ type: 'function', function: { name: 'f' } }],
    });
    expect(answer.status).toBe(200);
    expect(answer.body.usage).toMatchObject({ completion_tokens: 5 });
    const sent = [...upA.inner.requests, ...upB.inner.requests].at(-1)!.body as any;
    expect(sent).toMatchObject({ model: 'vision-upstream', vendor_flag: 'x', top_k: 7, tools: [{ type: 'function', function: { name: 'f' } }] });
    expect(sent.messages.at(-1).content).toEqual([{ type: 'text', text: 'what is it?' }, image]);
  });

  it('keeps a prompt_cache_key on one endpoint and retries a 503 on the other', async () => {
    const before = [upA.chatRequests, upB.chatRequests];
    for (let i = 0; i < 4; i++) expect((await chat({ model: 'up-vision', prompt_cache_key: 'sticky' })).status).toBe(200);
    const delta = [upA.chatRequests - before[0], upB.chatRequests - before[1]].sort();
    expect(delta).toEqual([0, 4]);

    upA.script({ status: 503 });
    upB.script({ status: 503 });
    const retried = await chat({ model: 'up-vision' });
    expect(retried.status).toBe(200);
  });

  it('falls back to the next model when the requested one fails before answering', async () => {
    upC.script({ status: 500 });
    const answer = await chat({ model: 'up-flaky', fallbacks: [{ model: 'up-vision' }] });
    expect(answer.status).toBe(200);
    expect(answer.body.model).toBe('up-vision');

    upC.script({ status: 503 });
    const streamed = await chat({ model: 'up-flaky', fallbacks: [{ model: 'up-vision' }], stream: true });
    expect(streamed.status).toBe(200);
    const chunks = chunksOf(streamed.body);
    expect(new Set(chunks.map((c) => c.model))).toEqual(new Set(['up-vision']));
    expect(streamedText(chunks)).toBe('tok0 tok1 tok2 tok3 tok4');

    // Without fallbacks the failure is the answer.
    upC.script({ status: 500 });
    expect((await chat({ model: 'up-flaky' })).status).toBe(502);
  });

  it('maps upstream failures: 429 with retry-after, 5xx to 502/503, stall to 504, without leaking the upstream', async () => {
    upC.script({ status: 429, retryAfter: '9' });
    const limited = await chat({ model: 'up-flaky' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('9');

    upC.script({ status: 500, message: `crash at ${upC.url}` });
    const failed = await chat({ model: 'up-flaky' });
    expect(failed.status).toBe(502);
    upC.script({ status: 503 });
    expect((await chat({ model: 'up-flaky' })).status).toBe(503);
    upC.inner.configure({ failure: 'hang' });
    const stalled = await chat({ model: 'up-flaky' });
    expect(stalled.status).toBe(504);
    for (const answer of [limited, failed, stalled]) expect(JSON.stringify(answer.body)).not.toMatch(/127\.0\.0\.1|localhost/);
  });

  it('relays an upstream stream, and ends a cut one with an error event instead of [DONE]', async () => {
    upC.inner.configure({ tokenDelayMs: 5 });
    const whole = await chat({ model: 'up-flaky', stream: true });
    expect(streamedText(chunksOf(whole.body))).toBe('tok0 tok1 tok2 tok3 tok4');
    expect(whole.body.endsWith('data: [DONE]\n\n')).toBe(true);

    upC.inner.configure({ failure: 'drop-mid-stream', dropAfterTokens: 2 });
    const cut = await chat({ model: 'up-flaky', stream: true });
    expect(cut.status).toBe(200);
    expect(cut.body).toContain('tok1');
    expect(cut.body).not.toContain('[DONE]');
    expect(chunksOf(cut.body).at(-1)).toHaveProperty('error');
  });
});
