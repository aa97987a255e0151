import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, embed, embedMany, generateObject, generateText, streamText, tool } from 'ai';
import { z } from 'zod';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * Issue 32: the Vercel AI SDK (`ai` 5 + `@ai-sdk/openai` 2) against the platform `npm start` runs,
 * one test per call a user makes, through `provider.chat()` (Chat Completions), `provider.responses()`
 * (tools) and `provider.embedding()` on the embedded models. `e2e/openai-ecosystem.e2e-spec.ts`
 * covers the SDK's default provider (text, streams and objects on `/responses`), speech and
 * transcription. The model's answers are its own: the assertions are about shapes, parsing and the
 * errors the SDK raises.
 */
describe('Vercel AI SDK through Chat Completions, Responses and embeddings (issue 32)', () => {
  let platform: RunningPlatform;
  let model: string;

  const EMBEDDING_MODEL = 'svc-zoo-embed';
  const EMBEDDING_DIMENSIONS = 160;
  const Person = z.object({ name: z.string().max(30), age: z.number().int() });
  const Weather = z.object({ city: z.string().max(40) });
  const getWeather = tool({ description: 'The current weather in a city.', inputSchema: Weather });

  beforeAll(async () => {
    platform = await startPlatform();
    model = ((await (await fetch(`${platform.apiUrl}/models/traits`)).json()) as { data: { default: string } }).data.default;
  }, 150_000);

  afterAll(async () => {
    await platform?.stop();
  });

  const provider = () => createOpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey });

  it('generateText on provider.chat(): text, a finish reason and usage', async () => {
    const result = await generateText({ model: provider().chat(model), prompt: 'What is a lamp?', maxOutputTokens: 24, maxRetries: 0 });
    expect(result.text.length).toBeGreaterThan(0);
    expect(['stop', 'length']).toContain(result.finishReason);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });

  it('streamText on provider.chat(): deltas that add up to the text, and usage in the last chunk (include_usage)', async () => {
    const result = streamText({ model: provider().chat(model), prompt: 'Tell me a story.', maxOutputTokens: 24, maxRetries: 0 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(await result.text).toBe(deltas.join(''));
    expect(['stop', 'length']).toContain(await result.finishReason);
    const usage = await result.usage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
  });

  it('generateObject on provider.chat() (structuredOutputs: a json_schema response_format): an object that parses', async () => {
    const { object, finishReason } = await generateObject({
      model: provider().chat(model),
      schema: Person,
      schemaName: 'person',
      prompt: 'Invent a person.',
      providerOptions: { openai: { structuredOutputs: true } },
      maxRetries: 0,
    });
    expect(finishReason).toBe('stop');
    expect(Person.safeParse(object).error).toBeUndefined();
  });

  it.each([
    ['provider.chat() (POST /chat/completions)', 'chat'],
    ['provider.responses() (POST /responses)', 'responses'],
  ] as const)("generateText on %s with one tool and toolChoice 'required': a call of that tool with arguments that parse", async (_, api) => {
    const result = await generateText({
      model: provider()[api](model),
      prompt: 'What is the weather in Paris?',
      tools: { get_weather: getWeather },
      toolChoice: 'required',
      maxOutputTokens: 150,
      maxRetries: 0,
    });
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls;
    expect(call).toMatchObject({ type: 'tool-call', toolName: 'get_weather', toolCallId: expect.any(String) });
    expect(call.dynamic).toBeFalsy();
    expect(Weather.safeParse(call.input).error).toBeUndefined();
  });

  it('embed and embedMany: vectors of the embedding model’s dimension, with usage', async () => {
    const embedding = provider().embedding(EMBEDDING_MODEL);
    const one = await embed({ model: embedding, value: 'A lamp in the window.', maxRetries: 0 });
    expect(one.embedding).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(one.usage.tokens).toBeGreaterThan(0);

    const many = await embedMany({ model: embedding, values: ['The river runs to the sea.', 'A lamp in the window.', 'Lanterns.'], maxRetries: 0 });
    expect(many.embeddings.map((v) => v.length)).toEqual([EMBEDDING_DIMENSIONS, EMBEDDING_DIMENSIONS, EMBEDDING_DIMENSIONS]);
    expect(many.embeddings[1]).toEqual(one.embedding);
  });

  describe('errors: an APICallError with the status code and the platform’s message', () => {
    // The AI SDK reads only OpenAI's error shape ({error: {message, ...}}); with the default
    // ERROR_STYLE=standard ({"error": "..."}) its message is the HTTP status text and the platform's
    // message is in responseBody, so the operator of an AI SDK app sets ERROR_STYLE=openai (docs/errors.md).
    let openaiStyle: RunningPlatform;

    beforeAll(async () => {
      openaiStyle = await startPlatform({ env: { ERROR_STYLE: 'openai' } });
    }, 150_000);

    afterAll(async () => {
      await openaiStyle?.stop();
    });

    const wrongKey = (p: RunningPlatform) => createOpenAI({ baseURL: p.apiUrl, apiKey: 'svc_no_such_key_0123456789' }).chat(model);
    const noSuchModel = (p: RunningPlatform) => createOpenAI({ baseURL: p.apiUrl, apiKey: p.adminKey }).chat('no-such-model');

    async function callError(call: Promise<unknown>): Promise<APICallError> {
      const err = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(APICallError.isInstance(err)).toBe(true);
      return err as APICallError;
    }
    const generate = (languageModel: ReturnType<typeof wrongKey>) => callError(generateText({ model: languageModel, prompt: 'Hello', maxRetries: 0 }));

    it('ERROR_STYLE=openai, a wrong API key: statusCode 401, message "Invalid API key.", code invalid_api_key', async () => {
      const err = await generate(wrongKey(openaiStyle));
      expect([err.statusCode, err.message, err.isRetryable]).toEqual([401, 'Invalid API key.', false]);
      expect(err.data).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key' } });
    });

    it('ERROR_STYLE=openai, a model that does not exist: statusCode 404 and the platform’s message naming it', async () => {
      const err = await generate(noSuchModel(openaiStyle));
      expect([err.statusCode, err.isRetryable]).toEqual([404, false]);
      expect(err.message).toBe('Model "no-such-model" does not exist or is not a text model. See GET /api/v1/models?type=text.');
      expect(err.data).toMatchObject({ error: { code: 'model_not_found' } });
    });

    it('the default style: statusCode 401 and 404, the platform’s message in responseBody', async () => {
      const unauthorized = await generate(wrongKey(platform));
      expect([unauthorized.statusCode, unauthorized.isRetryable]).toEqual([401, false]);
      expect(JSON.parse(unauthorized.responseBody ?? '{}')).toEqual({ error: 'Invalid API key.' });

      const notFound = await generate(noSuchModel(platform));
      expect([notFound.statusCode, notFound.isRetryable]).toEqual([404, false]);
      expect(JSON.parse(notFound.responseBody ?? '{}')).toEqual({ error: expect.stringMatching(/^Model "no-such-model" does not exist/) });
    });
  });
});
