import { modelSchema } from '@svc/catalog';
import { ChatCompletionParams } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { GenerateRequest, GenerateResult, TextEngine } from '../../engines/engine';
import { generateChoices } from './choices';
import { AnswerMismatchError } from './schema-check';

/** An engine stand-in that answers the given texts in turn: the control flow around the engine, not generation, is under test. */
function scripted(kind: TextEngine['kind'], texts: string[]): TextEngine & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    kind,
    requests,
    ready: async () => undefined,
    close: async () => undefined,
    generate: async (request: GenerateRequest): Promise<GenerateResult> => {
      requests.push(request);
      const text = texts[Math.min(requests.length - 1, texts.length - 1)];
      return { text, finishReason: 'stop', promptTokens: 10, completionTokens: 5 };
    },
  };
}

const model = (id: string) =>
  modelSchema.parse({
    id,
    name: id,
    type: 'text',
    engine: { kind: 'embedded-llama', file: 'x.gguf' },
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } },
    capabilities: { supportsResponseSchema: true, supportsFunctionCalling: true },
  });

const schema = { type: 'object', properties: { code: { type: 'string', pattern: '^x{3}$' } }, required: ['code'] };
const params: ChatCompletionParams = {
  model: 'a',
  messages: [{ role: 'user', content: 'Code?' }],
  seed: 1,
  response_format: { type: 'json_schema', json_schema: { name: 'c', schema } },
};

describe('answers checked against what the grammar cannot say', () => {
  it('a miss is retried once with another seed; both attempts are counted', async () => {
    const engine = scripted('embedded', ['{"code": "abc"}', '{"code": "xxx"}']);
    const { results } = await generateChoices([{ model: model('a'), engine: () => engine }], params, new AbortController().signal);
    expect(results[0]).toMatchObject({ text: '{"code": "xxx"}', promptTokens: 20, completionTokens: 10 });
    expect(engine.requests.map((r) => r.seed)).toEqual([1, 100_004]);
  });

  it('a second miss is a 400 naming the schema field and the place, never a 5xx', async () => {
    const engine = scripted('embedded', ['{"code": "abc"}']);
    const failure = await generateChoices([{ model: model('a'), engine: () => engine }], params, new AbortController().signal).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AnswerMismatchError);
    expect(failure).toMatchObject({ status: 400, message: expect.stringContaining('#/properties/code must match pattern') });
    expect((failure as DomainError).details).toHaveProperty(['response_format', 'json_schema', 'schema', '_errors']);
  });

  it('a fallback model still gets the request after two misses', async () => {
    const missing = scripted('embedded', ['{"code": "abc"}']);
    const upstream = scripted('upstream', ['{"code": "xxx"}']);
    const { model: answering, results } = await generateChoices(
      [
        { model: model('a'), engine: () => missing },
        { model: model('b'), engine: () => upstream },
      ],
      params,
      new AbortController().signal,
    );
    expect(answering.id).toBe('b');
    expect(results[0].text).toBe('{"code": "xxx"}');
  });

  it('tool arguments that miss their schema twice: a 400 naming that tool', async () => {
    const call = '{"name": "lookup", "arguments": {"q": "abc"}}';
    const engine = scripted('embedded', [call]);
    const tools = [
      { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string', pattern: '^x+$' } } } } },
    ];
    const failure = await generateChoices(
      [{ model: model('a'), engine: () => engine }],
      { ...params, response_format: undefined, tools, tool_choice: 'required' },
      new AbortController().signal,
    ).catch((e: unknown) => e);
    expect(failure).toMatchObject({ status: 400, message: expect.stringContaining('tool lookup arguments #/properties/q must match pattern') });
    expect((failure as DomainError).details).toHaveProperty(['tools', '0', 'function', 'parameters', '_errors']);
  });
});
