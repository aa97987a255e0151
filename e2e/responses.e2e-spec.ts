import OpenAI from 'openai';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * The Responses API and models.retrieve as the official `openai` SDK calls them, on the platform as
 * `npm start` runs it with its own catalog: the embedded default model (tiny; its answers are poor
 * but real) and the tiny random model for function tools (the default model has none). Every
 * answer is billed: the bootstrap account's balance falls by exactly what the usage costs.
 */
describe('Responses API end to end (openai SDK)', () => {
  let platform: RunningPlatform;
  let client: OpenAI;
  let defaultModel: string;
  /** The bootstrap account's available USD balance, in nano-USD, as the tests expect it now. */
  let expectedNano: bigint;

  beforeAll(async () => {
    platform = await startPlatform({ env: { BILLING_SETTLE_GRACE_MS: '500', BILLING_SWEEP_INTERVAL_MS: '200' } });
    client = new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
    defaultModel = ((await (await fetch(`${platform.apiUrl}/models/traits`)).json()) as { data: { default: string } }).data.default;
    expectedNano = await balanceNano();
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
  });

  const nanoOf = (decimal: string): bigint => {
    const [whole, fraction = ''] = decimal.split('.');
    return BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0').slice(0, 9));
  };

  async function balanceNano(): Promise<bigint> {
    const res = await fetch(`${platform.apiUrl}/billing/balance`, { headers: { authorization: `Bearer ${platform.adminKey}` } });
    return nanoOf(res.headers.get('x-svc-balance-usd') ?? 'NaN');
  }

  /** Settlement is asynchronous (the chat service settles, a lease closes when idle): poll until the balance says so. */
  async function expectCharged(nano: bigint): Promise<void> {
    expect(nano).toBeGreaterThan(0n);
    expectedNano -= nano;
    let last = -1n;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      last = await balanceNano();
      if (last === expectedNano) return;
    }
    expect(last).toBe(expectedNano);
  }

  /** What `usage` costs on `model` at its catalog prices (USD per million tokens), in nano-USD, read through models.retrieve. */
  async function costNano(model: string, usage: OpenAI.Responses.ResponseUsage): Promise<bigint> {
    const { pricing } = ((await client.models.retrieve(model)) as unknown as { model_spec: { pricing: { input: { usd: number }; output: { usd: number } } } })
      .model_spec;
    return BigInt(Math.round(usage.input_tokens * pricing.input.usd * 1000 + usage.output_tokens * pricing.output.usd * 1000));
  }

  function expectUsage(usage: OpenAI.Responses.ResponseUsage | undefined, maxOutput: number): asserts usage is OpenAI.Responses.ResponseUsage {
    expect(usage).toBeDefined();
    expect(usage!.input_tokens).toBeGreaterThan(0);
    expect(usage!.output_tokens).toBeGreaterThan(0);
    expect(usage!.output_tokens).toBeLessThanOrEqual(maxOutput);
    expect(usage!.total_tokens).toBe(usage!.input_tokens + usage!.output_tokens);
    // Both required by OpenAI's ResponseUsage; nothing counts cache writes, so 0.
    expect(usage!.input_tokens_details).toEqual({ cached_tokens: expect.any(Number), cache_write_tokens: 0 });
    expect(usage!.output_tokens_details.reasoning_tokens).toBe(0);
  }

  it('models.retrieve: the model as /models lists it; a compatibility name resolves to its model; an unknown id is NotFoundError', async () => {
    const listed = (await client.models.list()).data.find((m) => m.id === defaultModel);
    const model = await client.models.retrieve(defaultModel);
    expect(model).toEqual(listed);
    expect(model).toMatchObject({ id: defaultModel, object: 'model', owned_by: 'svc' });
    expect((await client.models.retrieve('gpt-4o-mini')).id).toBe(defaultModel);
    await expect(client.models.retrieve('no-such-model')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('models.retrieve takes every name chat and audio take: default as chat resolves it, a trait of ?type=, the OpenAI audio names', async () => {
    // `default` is the text model chat runs for `model: "default"`, answered under its own id.
    expect(await client.models.retrieve('default')).toEqual(await client.models.retrieve(defaultModel));
    const traitOf = async (type: string) =>
      ((await (await fetch(`${platform.apiUrl}/models/traits?type=${type}`)).json()) as { data: { default: string } }).data.default;
    const [tts, asr] = [await traitOf('tts'), await traitOf('asr')];
    const get = async (name: string) => {
      const res = await fetch(`${platform.apiUrl}/models/${name}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { id: string }).id;
    };
    expect(await get('default?type=tts')).toBe(tts);
    expect(await get('default?type=asr')).toBe(asr);
    for (const name of ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts']) expect((await client.models.retrieve(name)).id).toBe(tts);
    for (const name of ['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe']) expect((await client.models.retrieve(name)).id).toBe(asr);
    const badType = await fetch(`${platform.apiUrl}/models/default?type=nope`);
    expect(badType.status).toBe(400);
  });

  it('responses.create: a message with output_text, usage, and the balance falls by its cost', async () => {
    const { data: response, response: http } = await client.responses
      .create({ model: defaultModel, instructions: 'Answer briefly.', input: 'What is a lamp?', max_output_tokens: 16, store: false })
      .withResponse();
    expect(response).toMatchObject({ object: 'response', model: defaultModel, error: null, store: false, instructions: 'Answer briefly.' });
    expect(response.id).toMatch(/^resp_/);
    expect(['completed', 'incomplete']).toContain(response.status);
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant' });
    // OpenAI's OutputTextContent requires logprobs: an empty list, as no log probabilities are sent.
    expect((response.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0]).toEqual({
      type: 'output_text',
      text: response.output_text,
      annotations: [],
      logprobs: [],
    });
    expect(response.output_text.length).toBeGreaterThan(0);
    expectUsage(response.usage, 16);
    expect(http.headers.get('x-svc-model-id')).toBe(defaultModel);
    const charged = await costNano(defaultModel, response.usage);
    expect(BigInt(Math.round((response as unknown as { cost: { usd: number } }).cost.usd * 1e9))).toBe(charged);
    await expectCharged(charged);
  });

  it('stream: true: the event sequence, deltas concatenating to the completed text, usage, billed', async () => {
    const stream = await client.responses.create({
      model: defaultModel,
      input: [{ role: 'user', content: 'Tell me a story.' }],
      max_output_tokens: 20,
      stream: true,
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(['response.created', 'response.in_progress']);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const final = events.at(-1)!;
    if (final.type !== 'response.completed' && final.type !== 'response.incomplete') throw new Error(`last event ${final.type}`);
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    expect(deltas.length).toBeGreaterThan(0);
    const message = final.response.output.find((i): i is OpenAI.Responses.ResponseOutputMessage => i.type === 'message');
    const part = { type: 'output_text', text: deltas, annotations: [], logprobs: [] };
    expect(message?.content[0]).toEqual(part);
    // The part as added (empty) and done, and the item as done, carry logprobs too.
    const parts = events.flatMap((e) => (e.type === 'response.content_part.added' || e.type === 'response.content_part.done' ? [e.part] : []));
    expect(parts).toEqual([{ ...part, text: '' }, part]);
    const itemDone = events.find((e): e is OpenAI.Responses.ResponseOutputItemDoneEvent => e.type === 'response.output_item.done');
    expect((itemDone?.item as OpenAI.Responses.ResponseOutputMessage).content).toEqual([part]);
    const done = events.find((e) => e.type === 'response.output_text.done');
    expect(done && 'text' in done && done.text).toBe(deltas);
    expectUsage(final.response.usage, 20);
    await expectCharged(await costNano(defaultModel, final.response.usage));
  });

  it('a function tool: a function_call the SDK types, plain and streamed; its output goes back in', async () => {
    const model = 'svc-tiny-random';
    const tools: OpenAI.Responses.Tool[] = [
      {
        type: 'function',
        name: 'lookup',
        strict: false,
        parameters: { type: 'object', properties: { q: { type: 'string', maxLength: 12 } }, required: ['q'] },
      },
    ];
    const response = await client.responses.create({ model, input: 'Find the lamp.', tools, tool_choice: 'required', max_output_tokens: 60 });
    const call = response.output.find((i): i is OpenAI.Responses.ResponseFunctionToolCall => i.type === 'function_call');
    expect(call).toMatchObject({ name: 'lookup', status: 'completed' });
    expect(typeof JSON.parse(call!.arguments).q).toBe('string');
    await expectCharged(await costNano(model, response.usage!));

    const stream = await client.responses.create({ model, input: 'Find the lamp.', tools, tool_choice: 'required', max_output_tokens: 60, stream: true });
    let args = '';
    let done: OpenAI.Responses.ResponseFunctionCallArgumentsDoneEvent | undefined;
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.function_call_arguments.delta') args += event.delta;
      if (event.type === 'response.function_call_arguments.done') done = event;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(done).toMatchObject({ name: 'lookup', arguments: args });
    await expectCharged(await costNano(model, completed!.usage!));

    const next = await client.responses.create({
      model,
      input: [{ role: 'user', content: 'Find the lamp.' }, call!, { type: 'function_call_output', call_id: call!.call_id, output: 'It is on the desk.' }],
      tools,
      max_output_tokens: 6,
    });
    expect(next.output[0].type).toBe('message');
    await expectCharged(await costNano(model, next.usage!));
  });

  it('text.format json_schema: the answer is JSON of that schema', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 12 }, bright: { type: 'boolean' } },
      required: ['name', 'bright'],
      additionalProperties: false,
    };
    const response = await client.responses.create({
      model: defaultModel,
      input: 'Describe a lamp as JSON.',
      max_output_tokens: 60,
      text: { format: { type: 'json_schema', name: 'lamp', schema, strict: true } },
    });
    const value = JSON.parse(response.output_text);
    expect([typeof value.name, typeof value.bright]).toEqual(['string', 'boolean']);
    await expectCharged(await costNano(defaultModel, response.usage!));
  });

  it('previous_response_id is a clear 400: nothing is stored', async () => {
    const refused = client.responses.create({ model: defaultModel, input: 'Hi', previous_response_id: 'resp_abc' });
    await expect(refused).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(refused).rejects.toThrow(/stateless/);
  });
});
