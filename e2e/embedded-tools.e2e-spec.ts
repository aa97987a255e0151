import { ChatOpenAI } from '@langchain/openai';
import OpenAI from 'openai';
import { z } from 'zod';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * Issue 32, points 2 and 6, as clients meet them on the platform `npm start` runs: tools on the
 * `default` model (the embedded zoo model, its calls shaped by a grammar) through the `openai`
 * SDK, plain and streamed, and LangChain's bindTools; and a format with a length bound
 * (`z.string().email().max(30)`) through LangChain's withStructuredOutput, once a 502 every time.
 * The model's answers are its own: the assertions are about shapes and parsing.
 */
describe('tools and bounded formats on the default embedded model (issue 32)', () => {
  let platform: RunningPlatform;
  let client: OpenAI;

  const Weather = z.object({ city: z.string().max(40) });
  const getWeather: OpenAI.FunctionDefinition = {
    name: 'get_weather',
    description: 'The current weather in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 40 } }, required: ['city'], additionalProperties: false },
  };
  const tools: OpenAI.Chat.ChatCompletionTool[] = [{ type: 'function', function: getWeather }];
  const ask: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];

  beforeAll(async () => {
    platform = await startPlatform();
    client = new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
  }, 150_000);

  afterAll(async () => {
    await platform?.stop();
  });

  it('the catalog says the default model calls functions', async () => {
    const models = (await (await fetch(`${platform.apiUrl}/models`, { headers: { authorization: `Bearer ${platform.adminKey}` } })).json()) as {
      data: Array<{ id: string; model_spec?: { capabilities?: Record<string, unknown> } }>;
    };
    const zoo = models.data.find((m) => m.id === 'svc-zoo-chat');
    expect(zoo?.model_spec?.capabilities?.supportsFunctionCalling).toBe(true);
  });

  it("openai SDK: tool_choice 'required' gives a get_weather call with arguments matching its schema; the tool result gets a text answer", async () => {
    const completion = await client.chat.completions.create({ model: 'default', messages: ask, tools, tool_choice: 'required', max_tokens: 150 });
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(call).toMatchObject({ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather' } });
    expect(typeof call.function.arguments).toBe('string');
    expect(Weather.safeParse(JSON.parse(call.function.arguments)).error).toBeUndefined();

    const answer = await client.chat.completions.create({
      model: 'default',
      messages: [
        ...ask,
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '{"temperature_c": 18, "sky": "clear"}' },
      ],
      tools,
      max_tokens: 40,
    });
    expect(answer.choices[0].message.tool_calls ?? []).toEqual([]);
    expect(['stop', 'length']).toContain(answer.choices[0].finish_reason);
    expect(answer.choices[0].message.content!.trim().length).toBeGreaterThan(0);
  });

  it('openai SDK, streamed: a delta naming the call, then its arguments, as OpenAI streams them; the SDK assembles the call', async () => {
    const stream = await client.chat.completions.create({ model: 'default', messages: ask, tools, tool_choice: 'required', max_tokens: 150, stream: true });
    const deltas: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(deltas[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(deltas.slice(1).every((d) => d.index === 0 && d.id === undefined && d.function?.name === undefined)).toBe(true);
    expect(Weather.safeParse(JSON.parse(deltas.map((d) => d.function?.arguments ?? '').join(''))).error).toBeUndefined();

    const assembled = await client.chat.completions
      .stream({ model: 'default', messages: ask, tools, tool_choice: { type: 'function', function: { name: 'get_weather' } }, max_tokens: 150 })
      .finalChatCompletion();
    const call = assembled.choices[0].message.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('get_weather');
    expect(Weather.safeParse(JSON.parse(call.function.arguments)).error).toBeUndefined();
  });

  describe('LangChain (@langchain/openai)', () => {
    const llm = () =>
      new ChatOpenAI({ model: 'default', apiKey: platform.adminKey, configuration: { baseURL: platform.apiUrl }, maxRetries: 0, maxTokens: 120 });

    it('bindTools: a parsed tool call (it was a 400 "does not support function calling")', async () => {
      const message = await llm()
        .bindTools([{ type: 'function', function: getWeather }])
        .invoke('What is the weather in Paris?');
      expect(message.tool_calls).toHaveLength(1);
      expect(message.tool_calls![0]).toMatchObject({ name: 'get_weather', type: 'tool_call' });
      expect(Weather.safeParse(message.tool_calls![0].args).error).toBeUndefined();
    });

    it('withStructuredOutput on z.string().email().max(30): a valid object (it was a 502 every time, retried by the SDK)', async () => {
      const Contact = z.object({ email: z.string().email().max(30) });
      for (let i = 0; i < 3; i++) {
        const contact = await llm().withStructuredOutput(Contact, { name: 'contact' }).invoke('Invent a contact.');
        expect(Contact.safeParse(contact).error).toBeUndefined();
      }
    });
  });
});
