import { ModelDefinition } from '@svc/catalog';
import { ChatCompletionParams, SVC_PARAMETER_DEFAULTS, WEB_CONTEXT_MAX_BYTES } from '@svc/contracts';
import { chatWorstCase, exactChatWorstCase, PromptAdditions } from './chat-worst-case';

const model = (context?: number, cap = 100, kind = 'openai-compatible') =>
  ({ id: 'm', availableContextTokens: context, maxCompletionTokens: cap, engine: { kind } }) as unknown as ModelDefinition;
const none: PromptAdditions = { budget: { systemPromptBytes: 0, noThinkInstructionBytes: 0, separatorBytes: 0 }, personaBytes: 0 };
const params = (extra: Partial<ChatCompletionParams> = {}): ChatCompletionParams => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra });
const prompt = (p: ChatCompletionParams, additions = none, m = model()) => chatWorstCase(p, m, additions).promptTokens;

describe('chatWorstCase', () => {
  const base = prompt(params());

  it('counts every byte the service adds: its system prompt, the persona, the no-think instruction', () => {
    expect(prompt(params(), { budget: { systemPromptBytes: 140, noThinkInstructionBytes: 9, separatorBytes: 12 }, personaBytes: 2000 })).toBe(
      base + 140 + 12 + 2000,
    );
    const noThink = params({ svc_parameters: { ...SVC_PARAMETER_DEFAULTS, disable_thinking: true } });
    expect(prompt(noThink, { ...none, budget: { ...none.budget, noThinkInstructionBytes: 9 } })).toBe(prompt(noThink) + 9);
    const without = params({ svc_parameters: { ...SVC_PARAMETER_DEFAULTS, include_svc_system_prompt: false } });
    expect(prompt(without, { ...none, budget: { ...none.budget, systemPromptBytes: 140 } })).toBe(prompt(without));
  });

  it('bounds a raw prompt by its UTF-8 bytes and a few special tokens: no template, nothing the service adds', () => {
    const text = 'Once upon a time, 你好';
    const raw = { model: 'm', prompt: text, max_tokens: 16, n: 2 };
    const additions = { budget: { systemPromptBytes: 140, noThinkInstructionBytes: 9, separatorBytes: 12 }, personaBytes: 2000 };
    expect(chatWorstCase(raw, model(), additions)).toEqual({ kind: 'text', promptTokens: Buffer.byteLength(text) + 8, completionTokens: 32 });
    expect(chatWorstCase(raw, model(), none).promptTokens).toBeLessThan(prompt(params({ messages: [{ role: 'user', content: text }] })));
    expect(chatWorstCase(raw, model(10), none).promptTokens).toBe(10);
  });

  it('counts non-ASCII text in UTF-8 bytes, and parts and tool calls of messages', () => {
    expect(prompt(params({ messages: [{ role: 'user', content: 'héllo wörld 你好' }] }))).toBeGreaterThanOrEqual(
      base - 2 + Buffer.byteLength('héllo wörld 你好'),
    );
    const withParts = params({
      messages: [{ role: 'user', content: 'look', parts: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(1000)}` } }] }],
    });
    expect(prompt(withParts)).toBeGreaterThan(base + 1000);
  });

  it('adds tool and response-format schemas, and the web context at its cap with the search fees', () => {
    const tools = [{ type: 'function' as const, function: { name: 'lookup', description: 'x'.repeat(300), parameters: { type: 'object' } } }];
    expect(prompt(params({ tools }))).toBeGreaterThan(base + 300);
    const web = chatWorstCase(params({ svc_parameters: { ...SVC_PARAMETER_DEFAULTS, enable_web_search: 'on', enable_web_scraping: true } }), model(), none);
    expect(web.promptTokens).toBeGreaterThanOrEqual(base + WEB_CONTEXT_MAX_BYTES);
    expect(web).toMatchObject({ webSearches: 1, webScrapes: 5 });
    expect(chatWorstCase(params(), model(), none)).not.toHaveProperty('webSearches');
  });

  it('bills the prompt once and the completion once per choice, within the model caps', () => {
    expect(chatWorstCase(params({ max_tokens: 8, n: 3 }), model(), none).completionTokens).toBe(24);
    expect(chatWorstCase(params({ max_tokens: 8000 }), model(undefined, 100), none).completionTokens).toBe(100);
    expect(chatWorstCase(params(), model(undefined, 64), none).completionTokens).toBe(64);
  });

  it('counts the prompt and the completion twice where an embedded engine may retry a checked answer (tools, json_schema)', () => {
    const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];
    const schema = { type: 'json_schema' as const, json_schema: { name: 'x', schema: { type: 'object' } } };
    const embedded = model(undefined, 100, 'embedded-llama');
    for (const extra of [{ tools }, { response_format: schema }]) {
      const once = chatWorstCase(params({ max_tokens: 8, ...extra }), model(), none);
      const twice = chatWorstCase(params({ max_tokens: 8, ...extra }), embedded, none);
      expect(twice).toMatchObject({ promptTokens: once.promptTokens * 2, completionTokens: 16 });
    }
    expect(chatWorstCase(params({ max_tokens: 8 }), embedded, none).completionTokens).toBe(8);
  });

  it('never counts more prompt than the model’s context can take', () => {
    expect(prompt(params({ messages: [{ role: 'user', content: 'x'.repeat(5000) }] }), none, model(1024))).toBe(1024);
  });
});

describe("exactChatWorstCase: the worst case at the margin, from the chat service's count", () => {
  const webParams = params({ max_tokens: 8, svc_parameters: { ...SVC_PARAMETER_DEFAULTS, enable_web_search: 'on' } });

  it('takes a count with the web context it found as the whole prompt (no cap added)', () => {
    const exact = exactChatWorstCase(webParams, model(), { promptTokens: 900, evaluations: 1, webContextBytes: 2_000 }, none);
    expect(exact).toMatchObject({ promptTokens: 900, completionTokens: 8, webSearches: 1 });
  });

  it('without a token count, bounds the prompt by bytes with the context the count found instead of its cap', () => {
    const capped = chatWorstCase(webParams, model(), none);
    const found = exactChatWorstCase(webParams, model(), { promptTokens: null, evaluations: 1, webContextBytes: 2_000 }, none);
    expect(capped.promptTokens - found!.promptTokens).toBe(WEB_CONTEXT_MAX_BYTES - 2_000);
    expect(exactChatWorstCase(webParams, model(), { promptTokens: null, evaluations: 1 }, none)).toBeNull();
  });

  it('adds the context at its cap to a count made without one (a service that does not search for counts)', () => {
    const exact = exactChatWorstCase(webParams, model(), { promptTokens: 900, evaluations: 1 }, none);
    expect(exact!.promptTokens).toBe(900 + WEB_CONTEXT_MAX_BYTES + 8);
  });
});
