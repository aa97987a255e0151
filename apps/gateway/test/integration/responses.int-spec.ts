import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeTinyGguf } from '@svc/gguf';
import { ChatStack, startChatStack } from './support/chat-stack';
import { ApiAnswer, LocalServer, startLocalServer } from './support/chat-http';

/**
 * POST /responses and GET /models/{id} through a gateway process on the chat pipeline: private
 * NATS and Redis, fresh keys and chat databases, the keys and chat services from sources, the
 * tiny random-weight GGUF on the embedded engine, and an upstream that thinks aloud.
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
    capabilities: { supportsResponseSchema: true, supportsFunctionCalling: true }
  - id: thinker
    name: Upstream that thinks aloud
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${RESP_THINKER}", model: thinker, timeoutMs: 3000, retries: 0, healthCheckIntervalMs: 0 }
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    maxCompletionTokens: 64
compatibilityMapping:
  gpt-4o-mini: tiny
`;

const THOUGHT = '<think>The user greets me.</think>\n\nHello!';

/** An OpenAI-protocol upstream whose answer starts with a <think> block, plain or streamed in pieces. */
function startThinker(): Promise<LocalServer> {
  return startLocalServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const usage = { prompt_tokens: 7, completion_tokens: 9, total_tokens: 16 };
      const base = { id: 'up-1', created: 1, model: 'thinker' };
      if (!(JSON.parse(raw) as { stream?: boolean }).stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: THOUGHT }, finish_reason: 'stop' }],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (delta: object, finish: string | null = null, extra = {}) =>
        res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
      send({ role: 'assistant', content: '' });
      for (const piece of THOUGHT.match(/.{1,5}/gs) ?? []) send({ content: piece });
      send({}, 'stop', { usage });
      res.end('data: [DONE]\n\n');
    });
  });
}

let stack: ChatStack;
let modelsDir: string;
let thinker: LocalServer;

beforeAll(async () => {
  modelsDir = mkdtempSync(path.join(os.tmpdir(), 'svc-responses-models-'));
  writeTinyGguf(path.join(modelsDir, 'tiny.gguf'));
  thinker = await startThinker();
  stack = await startChatStack({
    name: 'resp',
    catalog: CATALOG,
    env: { RESP_THINKER: `http://127.0.0.1:${thinker.port}/v1` },
    chatEnv: { CHAT_SEED_CHARACTERS: 'false', SVC_MODELS_DIR: modelsDir, SVC_SYSTEM_PROMPT: 'Be brief.' },
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await thinker?.close();
  rmSync(modelsDir, { recursive: true, force: true });
}, 60_000);

const respond = (body: Record<string, unknown>): Promise<ApiAnswer> =>
  stack.request('/responses', { body: { model: 'tiny', input: 'Describe a city.', max_output_tokens: 12, seed: 5, ...body } });

/** The named events of an SSE body, in order. */
const eventsOf = (sse: string): any[] =>
  sse
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const [eventLine, dataLine] = block.split('\n');
      const data = JSON.parse(dataLine.slice('data: '.length));
      expect(eventLine).toBe(`event: ${data.type}`);
      return data;
    });

const joined = (events: any[], type: string) =>
  events
    .filter((e) => e.type === type)
    .map((e) => e.delta)
    .join('');

describe('POST /responses', () => {
  it('answers a string input with a message item, usage, the model headers and the request echoed', async () => {
    const answer = await respond({ instructions: 'Answer in English.', metadata: { run: 'a' }, store: true });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-svc-model-id')).toBe('tiny');
    const body = answer.body;
    expect(body).toMatchObject({ object: 'response', model: 'tiny', instructions: 'Answer in English.', metadata: { run: 'a' }, store: false, error: null });
    expect(body.id).toMatch(/^resp_/);
    expect(['completed', 'incomplete']).toContain(body.status);
    expect(body.output).toHaveLength(1);
    expect(body.output[0]).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', annotations: [] }] });
    expect(body.output[0].content[0].text.length).toBeGreaterThan(0);
    const { usage } = body;
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeLessThanOrEqual(12);
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    expect(body.cost.usd).toBeGreaterThan(0);
  });

  it('streams the Responses event sequence: numbered, deltas joining to the final text, usage on response.completed', async () => {
    const answer = await respond({ stream: true, input: [{ role: 'user', content: [{ type: 'input_text', text: 'Tell me a story.' }] }] });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    const events = eventsOf(answer.text);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.slice(0, 4).map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(events.slice(-4).map((e) => e.type)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      expect.stringMatching(/^response\.(completed|incomplete)$/),
    ]);
    const final = events.at(-1).response;
    const text = joined(events, 'response.output_text.delta');
    expect(text.length).toBeGreaterThan(0);
    expect(final.output[0].content[0].text).toBe(text);
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    expect(final.id).toBe(events[0].response.id);
  });

  it('a function tool (forced): a function_call item, plain and streamed; its output goes back as a function_call_output item', async () => {
    const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string', maxLength: 12 } }, required: ['q'] } }];
    const plain = await respond({ input: 'Find it', tools, tool_choice: 'required', max_output_tokens: 60 });
    expect(plain.status).toBe(200);
    const call = plain.body.output.find((i: any) => i.type === 'function_call');
    expect(call).toMatchObject({ name: 'lookup', status: 'completed', call_id: expect.any(String) });
    expect(typeof JSON.parse(call.arguments).q).toBe('string');

    const streamed = eventsOf((await respond({ input: 'Find it', tools, tool_choice: 'required', max_output_tokens: 60, stream: true })).text);
    const done = streamed.find((e) => e.type === 'response.function_call_arguments.done');
    expect(done.name).toBe('lookup');
    expect(joined(streamed, 'response.function_call_arguments.delta')).toBe(done.arguments);

    const next = await respond({
      input: [{ role: 'user', content: 'Find it' }, call, { type: 'function_call_output', call_id: call.call_id, output: 'found' }],
      tools,
      max_output_tokens: 5,
    });
    expect(next.status).toBe(200);
    expect(next.body.output[0].type).toBe('message');
  });

  it('text.format json_schema: the answer parses and matches the schema', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 10 }, ok: { type: 'boolean' } },
      required: ['name', 'ok'],
      additionalProperties: false,
    };
    const answer = await respond({ max_output_tokens: 60, text: { format: { type: 'json_schema', name: 'thing', schema, strict: true } } });
    expect(answer.status).toBe(200);
    const value = JSON.parse(answer.body.output[0].content[0].text);
    expect([typeof value.name, typeof value.ok]).toEqual(['string', 'boolean']);
    expect(answer.body.text.format).toMatchObject({ type: 'json_schema', name: 'thing' });
  });

  it('a model that thinks aloud: a reasoning item before the message, plain and streamed', async () => {
    const plain = await respond({ model: 'thinker' });
    expect(plain.status).toBe(200);
    expect(plain.body.output.map((i: any) => i.type)).toEqual(['reasoning', 'message']);
    expect(plain.body.output[0].content[0].text).toBe('The user greets me.');
    expect(plain.body.output[1].content[0].text).toBe('Hello!');
    expect(plain.body.usage).toMatchObject({ input_tokens: 7, output_tokens: 9, total_tokens: 16 });

    const events = eventsOf((await respond({ model: 'thinker', stream: true })).text);
    expect(joined(events, 'response.reasoning_text.delta')).toBe('The user greets me.');
    expect(joined(events, 'response.output_text.delta')).toBe('Hello!');
    expect(events.at(-1).response.output.map((i: any) => i.type)).toEqual(['reasoning', 'message']);
  });

  it('a compatibility name runs its model; an unknown model is a 404', async () => {
    expect((await respond({ model: 'gpt-4o-mini' })).body.model).toBe('tiny');
    const unknown = await respond({ model: 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain('nope');
  });

  it.each([
    ['previous_response_id', { previous_response_id: 'resp_123' }, 'previous_response_id'],
    ['conversation', { conversation: 'conv_1' }, 'conversation'],
    ['background', { background: true }, 'background'],
    ['item_reference', { input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input'],
    ['no input', { input: undefined }, 'input'],
    ['an empty input list', { input: [] }, 'input'],
    ['an unknown item type', { input: [{ type: 'computer_call', id: 'c' }] }, 'input'],
    ['an input_file part', { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }, 'input'],
    ['a hosted tool', { tools: [{ type: 'file_search', vector_store_ids: ['v'] }] }, 'tools'],
    ['a bad tool_choice', { tool_choice: 'maybe' }, 'tool_choice'],
    ['an unknown text.format', { text: { format: { type: 'xml' } } }, 'text'],
    ['a zero max_output_tokens', { max_output_tokens: 0 }, 'max_output_tokens'],
    ['a temperature over 2', { temperature: 2.5 }, 'temperature'],
    ['a top_p of 0', { top_p: 0 }, 'top_p'],
    ['a bad svc_parameters value', { svc_parameters: { enable_web_search: 'sometimes' } }, 'svc_parameters'],
    ['no model', { model: undefined }, 'model'],
  ])('refuses %s: a 400 DetailedError naming the field', async (_, body, field) => {
    const answer = await respond(body);
    expect(answer.status).toBe(400);
    expect(typeof answer.body.error).toBe('string');
    expect(answer.body.details).toHaveProperty(field);
    expect(answer.headers.get('cf-ray')).toBeTruthy();
  });

  it("refuses tools on a model without function calling: the chat service's 400, as on /chat/completions", async () => {
    const tools = [{ type: 'function', name: 'f', parameters: { type: 'object' } }];
    const noTools = await respond({ model: 'thinker', tools });
    expect(noTools.status).toBe(400);
    expect(noTools.body.error).toMatch(/function calling/);
  });

  it('an input over the context: 400 context_length_exceeded blaming `input` (not `messages`), plain and streamed', async () => {
    for (const stream of [false, true]) {
      const tooLong = await respond({ input: 'The harbour lights were burning late. '.repeat(200), stream });
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.error).toMatchObject({ type: 'invalid_request_error', code: 'context_length_exceeded', param: 'input' });
      expect(tooLong.body.error.message).toMatch(/maximum context length is 512 tokens\. However, your input resulted in \d+ tokens/);
    }
  });
});

describe('GET /models/{id}', () => {
  it('answers the model as /models lists it, by id or compatibility name; 404 for an unknown id', async () => {
    const list = (await stack.request('/models?type=text')).body.data;
    const byId = await stack.request('/models/tiny');
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(list.find((m: any) => m.id === 'tiny'));
    expect((await stack.request('/models/gpt-4o-mini')).body.id).toBe('tiny');
    const unknown = await stack.request('/models/no-such-model');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: expect.stringContaining('no-such-model') });
    expect((await stack.request('/models/constructor')).status).toBe(404);
  });
});
