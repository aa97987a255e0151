import * as path from 'node:path';
import { loadCatalog } from '@svc/catalog';
import { REPO_ROOT } from '@svc/config';
import { ChatCompletionParams, ToolDefinition } from '@svc/contracts';
import { z } from 'zod';
import { generateChoices } from '../../src/chat/request/choices';
import { EmbeddedLlamaEngine, EngineLogger } from '../../src/engines/embedded/embedded-llama.engine';

// Issue 32, points 2 and 6, on the catalog's default model (the committed zoo GGUF) through the
// same request path the chat service runs: schemas whose formats carry length bounds answer with
// a valid value every time, and tools work on it, their calls shaped by the grammar. The answers
// are the model's own; only their shape is asserted.

const quiet: EngineLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('the default model: structured output with bounded formats, and tools (issue 32)', () => {
  const model = loadCatalog().resolve('default', 'text')!;
  let engine: EmbeddedLlamaEngine;

  beforeAll(async () => {
    if (model.engine.kind !== 'embedded-llama') throw new Error('the default text model must be the embedded zoo model');
    engine = new EmbeddedLlamaEngine({
      modelPath: path.join(REPO_ROOT, 'models', model.engine.file),
      contextSize: 2048,
      maxParallel: 1,
      maxQueue: 8,
      logger: quiet,
    });
    await engine.ready();
  });
  afterAll(async () => {
    await engine?.close();
  });

  const run = (over: Partial<ChatCompletionParams>) =>
    generateChoices(
      [{ model, engine: () => engine }],
      { model: model.id, messages: [{ role: 'user', content: 'Invent a person.' }], ...over },
      new AbortController().signal,
    );

  it('{email: format email, maxLength 30}: a valid address of at most 30 characters, every time (it was a 502 every time)', async () => {
    const schema = { type: 'object', properties: { email: { type: 'string', format: 'email', maxLength: 30 } }, required: ['email'] };
    const Shape = z.object({ email: z.string().email().max(30) });
    for (const seed of [1, 2, 3, 4]) {
      const { results } = await run({ seed, response_format: { type: 'json_schema', json_schema: { name: 'contact', schema } } });
      expect(results[0].finishReason).toBe('stop');
      expect(Shape.safeParse(JSON.parse(results[0].text)).error).toBeUndefined();
    }
  });

  it('zod bounds on formats, item counts and a range with no integer in it: the answer passes zod', async () => {
    const Shape = z.object({
      emails: z.array(z.string().email().max(24)).min(2).max(3),
      site: z.url().max(40),
      ip: z.ipv4(),
      when: z.iso.datetime(),
      share: z.number().positive().lt(1),
      code: z.string().min(3).max(6),
    });
    const response_format = { type: 'json_schema' as const, json_schema: { name: 'record', schema: z.toJSONSchema(Shape) } };
    for (const seed of [5, 6]) {
      const { results } = await run({ seed, max_tokens: 200, response_format });
      expect(results[0].finishReason).toBe('stop');
      expect(Shape.safeParse(JSON.parse(results[0].text)).error).toBeUndefined();
    }
  });

  describe('tools', () => {
    const Weather = z.object({ city: z.string().max(40), unit: z.enum(['celsius', 'fahrenheit']).optional() });
    const tools: ToolDefinition[] = [
      { type: 'function', function: { name: 'get_weather', description: 'The weather in a city.', parameters: z.toJSONSchema(Weather) } },
      {
        type: 'function',
        function: {
          name: 'get_time',
          description: 'The time in a city.',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const ask = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];

    it("tool_choice 'required' and 'auto' after a user turn: one call of a given tool, arguments matching its schema", async () => {
      for (const [seed, tool_choice] of [
        [1, 'required'],
        [2, 'auto'],
      ] as const) {
        const { results } = await run({ seed, tools, tool_choice, messages: ask });
        expect(results[0]).toMatchObject({ finishReason: 'tool_calls', text: '' });
        const [call] = results[0].toolCalls!;
        expect(call).toMatchObject({ id: expect.stringMatching(/^call_/), type: 'function' });
        expect(['get_weather', 'get_time']).toContain(call.function.name);
        const args = JSON.parse(call.function.arguments);
        if (call.function.name === 'get_weather') expect(Weather.safeParse(args).error).toBeUndefined();
        else expect(typeof args.city).toBe('string');
      }
    });

    it('a named function is the one called; the tool result then gets a text answer; none never calls', async () => {
      const { results } = await run({ seed: 3, tools, tool_choice: { type: 'function', function: { name: 'get_weather' } }, messages: ask });
      const [call] = results[0].toolCalls!;
      expect(call.function.name).toBe('get_weather');
      expect(Weather.safeParse(JSON.parse(call.function.arguments)).error).toBeUndefined();

      const after = await run({
        seed: 3,
        tools,
        max_tokens: 40,
        messages: [
          ...ask,
          { role: 'assistant', content: '', tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: '{"temperature": 18, "sky": "clear"}' },
        ],
      });
      expect(after.results[0].toolCalls).toBeUndefined();
      expect(['stop', 'length']).toContain(after.results[0].finishReason);
      expect(after.results[0].text.trim().length).toBeGreaterThan(0);

      const none = await run({ seed: 3, tools, tool_choice: 'none', max_tokens: 20, messages: ask });
      expect(none.results[0].toolCalls).toBeUndefined();
      expect(none.results[0].text.length).toBeGreaterThan(0);
    });
  });
});
