import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ModelDefinition, modelSchema } from '@svc/catalog';
import { ChatCompletionParams, RawCompletionParams } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { writeTinyGguf } from '@svc/gguf';
import { z } from 'zod';
import { generateChoices } from '../../src/chat/request/choices';
import { EmbeddedLlamaEngine } from '../../src/engines/embedded/embedded-llama.engine';
import { isContextLengthExceeded } from '../../src/engines/context-length';
import { imageMessage } from './image-message';

// Request features on the real embedded engine with the tiny random-weight model: its text is
// noise, so grammars are what make the JSON parse, and that is exactly what is asserted.

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function tinyModel(capabilities: Record<string, boolean>): ModelDefinition {
  return modelSchema.parse({
    id: 'tiny',
    name: 'tiny',
    type: 'text',
    engine: { kind: 'embedded-llama', file: 'tiny.gguf', contextSize: 256 },
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } },
    maxCompletionTokens: 160,
    capabilities,
  });
}

describe('chat request features on the embedded engine (tiny model)', () => {
  let dir: string;
  let engine: EmbeddedLlamaEngine;
  const model = tinyModel({ supportsResponseSchema: true, supportsFunctionCalling: true, supportsLogProbs: true });
  const run = (over: Partial<ChatCompletionParams>) =>
    generateChoices(
      [{ model, engine: () => engine }],
      { model: 'tiny', messages: [{ role: 'user', content: 'Describe a city.' }], seed: 3, ...over },
      new AbortController().signal,
    );

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chat-features-'));
    const modelPath = path.join(dir, 'tiny.gguf');
    writeTinyGguf(modelPath);
    engine = new EmbeddedLlamaEngine({ modelPath, contextSize: 1024, maxParallel: 2, maxQueue: 8, logger: quiet });
    await engine.ready();
  });
  afterAll(async () => {
    await engine?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('json_schema output always parses and matches the schema', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 12 }, age: { type: 'integer' }, tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 3 } },
      required: ['name', 'age', 'tags'],
      additionalProperties: false,
    };
    for (const seed of [1, 2, 3]) {
      const { results } = await run({ seed, max_tokens: 160, response_format: { type: 'json_schema', json_schema: { name: 'person', schema } } });
      expect(results[0].finishReason).toBe('stop');
      // the answer is the object alone: no padding of newlines after it
      expect(results[0].text.startsWith('{') && results[0].text.endsWith('}')).toBe(true);
      const value = JSON.parse(results[0].text);
      expect(Object.keys(value).sort()).toEqual(['age', 'name', 'tags']);
      expect(typeof value.name).toBe('string');
      // An integer in JSON terms: digits, optionally an exponent, never a fraction (the grammar allows 12E3).
      expect(typeof value.age).toBe('number');
      expect(results[0].text).toMatch(/"age"\s*:\s*-?\d+([eE]\+?\d+)?\s*[,}]/);
      for (const tag of value.tags) expect(['a', 'b']).toContain(tag);
    }
  });

  describe('schemas from zod (room for what a random-weight model rambles)', () => {
    const roomy = { ...model, maxCompletionTokens: 500 };
    const runRoomy = (over: Partial<ChatCompletionParams>, onText?: (text: string) => void) =>
      generateChoices(
        [{ model: roomy, engine: () => engine }],
        { model: 'tiny', messages: [{ role: 'user', content: 'Who?' }], seed: 3, max_tokens: 500, ...over },
        new AbortController().signal,
        onText ? { text: async (_i, piece) => onText(piece) } : {},
      );

    it('.int().min().max(), .email(), .uuid() and dates: the answer passes zod itself, streamed or not', async () => {
      const Person = z.object({
        age: z.number().int().min(18).max(99),
        email: z.email(),
        id: z.uuid(),
        born: z.iso.date(),
        seen: z.iso.datetime(),
        score: z.number().min(0).max(1),
        kind: z.enum(['a', 'b']),
        nick: z.string().max(8).nullable(),
      });
      const response_format = { type: 'json_schema' as const, json_schema: { name: 'person', schema: z.toJSONSchema(Person) } };
      for (const seed of [1, 2]) {
        const { results } = await runRoomy({ seed, response_format });
        expect(results[0].finishReason).toBe('stop');
        expect(Person.safeParse(JSON.parse(results[0].text)).error).toBeUndefined();
      }
      let streamed = '';
      await runRoomy({ seed: 5, response_format }, (piece) => void (streamed += piece));
      expect(Person.safeParse(JSON.parse(streamed)).error).toBeUndefined();
    });

    it('tool arguments from zod pass zod; what no grammar enforces is checked after, and a second miss is a 400 naming the place (never a 5xx)', async () => {
      const Args = z.object({ city: z.string().max(16), days: z.number().int().min(1).max(7), contact: z.email() });
      const tools = [{ type: 'function' as const, function: { name: 'forecast', parameters: z.toJSONSchema(Args) } }];
      const { results } = await runRoomy({ tools, tool_choice: 'required' });
      expect(Args.safeParse(JSON.parse(results[0].toolCalls![0].function.arguments)).error).toBeUndefined();

      // A pattern is no grammar here: this model's noise never matches it, twice.
      const schema = { type: 'object', properties: { code: { type: 'string', pattern: '^x{5}$', maxLength: 5 } }, required: ['code'] };
      const failure = await runRoomy({ response_format: { type: 'json_schema', json_schema: { name: 'c', schema } } }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(DomainError);
      expect(failure).toMatchObject({ status: 400, message: expect.stringContaining('#/properties/code must match pattern') });
      expect((failure as DomainError).details).toHaveProperty(['response_format', 'json_schema', 'schema']);
    });
  });

  it('json_object output parses to an object', async () => {
    const { results } = await run({ seed: 4, max_tokens: 160, temperature: 0.2, response_format: { type: 'json_object' } });
    if (results[0].finishReason === 'stop') expect(typeof JSON.parse(results[0].text)).toBe('object');
    else expect(results[0].text.startsWith('{')).toBe(true);
  });

  it('tools: a forced call comes back as tool_calls with arguments matching the parameters', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 16 }, days: { type: 'integer' } }, required: ['city', 'days'] },
        },
      },
      { type: 'function' as const, function: { name: 'noop' } },
    ];
    const { results } = await run({ tools, tool_choice: { type: 'function', function: { name: 'get_weather' } }, max_tokens: 120 });
    expect(results[0]).toMatchObject({ finishReason: 'tool_calls', text: '' });
    const [call] = results[0].toolCalls!;
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(call.id).toMatch(/^call_/);
    const args = JSON.parse(call.function.arguments);
    expect(typeof args.city).toBe('string');
    expect(Number.isInteger(args.days)).toBe(true);

    // After a tool result, `auto` lets the model answer in text.
    const after = await run({
      tools,
      tool_choice: 'auto',
      max_tokens: 8,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '', tool_calls: [call] },
        { role: 'tool', content: '{"temp": 20}', tool_call_id: call.id },
      ],
    });
    expect(after.results[0].toolCalls).toBeUndefined();
    expect(after.results[0].text.length).toBeGreaterThan(0);
  });

  it('n choices, seeds, logprobs with top alternatives', async () => {
    const { results } = await run({ n: 2, max_tokens: 6, logprobs: true, top_logprobs: 3, temperature: 1 });
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(r.logprobs!.content).toHaveLength(r.completionTokens);
      for (const entry of r.logprobs!.content!) {
        expect(entry.logprob).toBeLessThanOrEqual(0);
        expect(entry.top_logprobs).toHaveLength(3);
        expect(entry.top_logprobs[0].logprob).toBeGreaterThanOrEqual(entry.top_logprobs[2].logprob);
      }
    }
  });

  it('a raw prompt: no chat template, with n choices, max_tokens, seeds, stop strings and logprobs as on chat', async () => {
    const raw = (over: Partial<RawCompletionParams>) =>
      generateChoices(
        [{ model, engine: () => engine }],
        { model: 'tiny', prompt: 'Describe a city.', seed: 3, temperature: 1, ...over },
        new AbortController().signal,
      );
    const { results } = await raw({ n: 2, max_tokens: 8, logprobs: true, top_logprobs: 2 });
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(r.completionTokens).toBeLessThanOrEqual(8);
      expect(r.logprobs!.content).toHaveLength(r.completionTokens);
      expect(r.logprobs!.content!.every((entry) => entry.top_logprobs.length === 2)).toBe(true);
    }
    // The same text as a chat turn is wrapped in the template: more prompt tokens.
    const [asChat] = (await run({ max_tokens: 1 })).results;
    expect(results[0].promptTokens).toBeLessThan(asChat.promptTokens);
    // A seed repeats a continuation, and a stop string cuts it where it first appears.
    const [first] = (await raw({ max_tokens: 24 })).results;
    expect((await raw({ max_tokens: 24 })).results[0].text).toBe(first.text);
    expect(first.text.length).toBeGreaterThan(4);
    const stop = first.text.slice(2, 4);
    const [cut] = (await raw({ max_tokens: 24, stop: [stop] })).results;
    expect(cut).toMatchObject({ text: first.text.slice(0, first.text.indexOf(stop)), finishReason: 'stop' });
  });

  it('sampling options change the output deterministically per seed', async () => {
    const base = { seed: 9, max_tokens: 24, temperature: 1 };
    const plain = (await run(base)).results[0].text;
    expect((await run(base)).results[0].text).toBe(plain);
    const greedyish = (await run({ ...base, top_k: 1 })).results[0].text;
    expect((await run({ ...base, top_k: 1, seed: 10 })).results[0].text).toBe(greedyish);
    const penalised = (await run({ ...base, top_k: 1, repetition_penalty: 2, presence_penalty: 2, frequency_penalty: 2 })).results[0].text;
    expect(penalised).not.toBe(greedyish);
    expect((await run({ ...base, min_p: 0.5 })).results[0].completionTokens).toBeGreaterThan(0);
  });

  it('reuses the evaluated prefix of the same conversation and reports cached tokens', async () => {
    const history = [
      { role: 'system' as const, content: 'You are a careful librarian. '.repeat(8) },
      { role: 'user' as const, content: 'First question about books.' },
    ];
    const first = (await run({ messages: history, max_tokens: 4, prompt_cache_key: 'conv-1' })).results[0];
    const second = (
      await run({
        messages: [...history, { role: 'assistant', content: first.text }, { role: 'user', content: 'And another?' }],
        max_tokens: 4,
        prompt_cache_key: 'conv-1',
      })
    ).results[0];
    expect(second.cachedTokens).toBeGreaterThanOrEqual(first.promptTokens - 2);
    expect(second.cachedTokens).toBeLessThan(second.promptTokens);
  });

  it('a prompt over the context is a context_length_exceeded error', async () => {
    const err = await run({ messages: [{ role: 'user', content: 'word '.repeat(1500) }] }).catch((e: unknown) => e);
    expect(isContextLengthExceeded(err)).toBe(true);
    expect((err as DomainError).status).toBe(400);
    expect((err as DomainError).message).toMatch(/maximum context length is 1024 tokens. However, your messages resulted in \d+ tokens/);
  });

  it('answers 400 for features the model does not have', async () => {
    const plain = tinyModel({});
    const on = (over: Partial<ChatCompletionParams>) =>
      generateChoices(
        [{ model: plain, engine: () => engine }],
        { model: 'tiny', messages: [{ role: 'user', content: 'x' }], ...over },
        new AbortController().signal,
      ).catch((e: DomainError) => e);
    const tools = [{ type: 'function' as const, function: { name: 'f' } }];
    expect(await on({ tools })).toMatchObject({ status: 400, message: expect.stringMatching(/function calling/) });
    expect(await on({ response_format: { type: 'json_object' } })).toMatchObject({ status: 400, message: expect.stringMatching(/structured output/) });
    expect(await on({ logprobs: true })).toMatchObject({ status: 400, message: expect.stringMatching(/log probabilities/) });
    const image = await on({ messages: [imageMessage()] });
    expect(image).toMatchObject({ status: 400, message: expect.stringMatching(/messages\.0\.content\.1: .*image input/) });
    expect(
      await on({ messages: [{ role: 'user', content: '', parts: [{ type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } }] }] }),
    ).toMatchObject({ message: expect.stringMatching(/audio input/) });
    expect(await on({ messages: [{ role: 'user', content: '', parts: [{ type: 'video_url', video_url: { url: 'https://x/v.mp4' } }] }] })).toMatchObject({
      message: expect.stringMatching(/video input/),
    });
  });
});
