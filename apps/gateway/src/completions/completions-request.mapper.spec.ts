import { CHAT, requestSchemaOf, SVC_PARAMETER_DEFAULTS } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { parseBody } from '../http/parse-body';
import { completionsRequestSchema } from './completions-request.dto';
import { toRawCompletionRequest } from './completions-request.mapper';

const requestOf = (body: Record<string, unknown>) =>
  toRawCompletionRequest(parseBody(completionsRequestSchema, { model: 'm', prompt: 'Once upon a time', ...body }));
const paramsOf = (body: Record<string, unknown>) => requestOf(body).params('m');

/** The 400's message and `details`, when the body is refused. */
function refusal(body: Record<string, unknown>): { message: string; details: unknown } {
  try {
    requestOf(body);
  } catch (err) {
    if (err instanceof DomainError) return { message: err.message, details: err.details };
  }
  throw new Error('accepted');
}

describe('completions request → raw completion', () => {
  it('sends the prompt as it is, to be continued: no messages, max_tokens 16 and no service system prompt by default', () => {
    const request = requestOf({});
    expect(request).toMatchObject({ model: 'm', svc_parameters: { include_svc_system_prompt: false } });
    expect(request.params('resolved-id')).toEqual({ model: 'resolved-id', prompt: 'Once upon a time', max_tokens: 16 });
    expect(request.params('m')).not.toHaveProperty('messages');
  });

  it('takes the one prompt of a list, whitespace and all', () => {
    expect(paramsOf({ prompt: ['A lamp is '] }).prompt).toBe('A lamp is ');
  });

  it('carries sampling, stop, n, seed, stream and usage as chat has them', () => {
    const params = paramsOf({
      max_tokens: 40,
      temperature: 0.2,
      top_p: 0.9,
      n: 2,
      best_of: 2,
      stop: '\n',
      seed: 5,
      presence_penalty: 0.5,
      frequency_penalty: 0.1,
      top_k: 20,
      stream: true,
      stream_options: { include_usage: true },
      user: 'u',
      fallbacks: [{ model: 'other' }],
    });
    expect(params).toMatchObject({
      max_tokens: 40,
      temperature: 0.2,
      top_p: 0.9,
      n: 2,
      stop: ['\n'],
      seed: 5,
      presence_penalty: 0.5,
      frequency_penalty: 0.1,
      top_k: 20,
      stream: true,
      stream_options: { include_usage: true },
      fallbacks: ['other'],
    });
    expect(params).not.toHaveProperty('best_of');
  });

  it('asks for k alternatives per token for logprobs: k', () => {
    expect(paramsOf({ logprobs: 3 })).toMatchObject({ logprobs: true, top_logprobs: 3 });
    expect(paramsOf({ logprobs: 0 })).toMatchObject({ logprobs: true, top_logprobs: 0 });
    expect(paramsOf({ logprobs: null })).not.toHaveProperty('logprobs');
  });

  it('is a raw completion the chat service accepts, its svc_parameters once the gateway decided them', () => {
    const svc = { include_svc_system_prompt: false, strip_thinking_response: true };
    const params = { ...paramsOf({ logprobs: 2, svc_parameters: svc }), svc_parameters: { ...SVC_PARAMETER_DEFAULTS, ...svc } };
    const caller = { requestId: 'req-1', accountId: 'acct', apiKeyId: 'key' };
    expect(requestSchemaOf(CHAT.COMPLETE)!.safeParse({ caller, params }).success).toBe(true);
  });

  it('passes svc_parameters that only act on the output, and keeps the service system prompt off when named off', () => {
    expect(requestOf({ svc_parameters: { include_svc_system_prompt: false } }).svc_parameters).toEqual({ include_svc_system_prompt: false });
    expect(requestOf({ model: 'm:include_svc_system_prompt=false' }).svc_parameters).toBeUndefined();
    expect(requestOf({ svc_parameters: { strip_thinking_response: true } }).svc_parameters).toEqual({
      include_svc_system_prompt: false,
      strip_thinking_response: true,
    });
  });

  it.each([
    ['the service system prompt, in the body', { svc_parameters: { include_svc_system_prompt: true } }, 'include_svc_system_prompt'],
    ['the service system prompt, in the model suffix', { model: 'm:include_svc_system_prompt=true' }, 'include_svc_system_prompt'],
    ['a character', { svc_parameters: { character_slug: 'pirate' } }, 'character_slug'],
    ['the no-think instruction', { svc_parameters: { disable_thinking: true } }, 'disable_thinking'],
    ['web search', { model: 'm:enable_web_search=auto' }, 'enable_web_search'],
    ['web scraping', { svc_parameters: { enable_web_scraping: true } }, 'enable_web_scraping'],
  ])('refuses what would add to the prompt with a 400 naming the parameter: %s', (_, body, name) => {
    const { message, details } = refusal(body);
    expect(message).toMatch(new RegExp(`svc_parameters\\.${name}: .*which a raw prompt \\(run with no chat template\\) cannot take`));
    expect(details).toMatchObject({ svc_parameters: { [name]: { _errors: [expect.any(String)] } } });
  });

  it('sends unknown fields on to upstream engines, and leaves chat-only fields behind', () => {
    const params = paramsOf({
      logit_bias: { '1': -100 },
      messages: [{ role: 'system', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'f' } }],
      max_completion_tokens: 500,
      echo: true,
    });
    expect(params).not.toHaveProperty('messages');
    expect(params.passthrough).toEqual({ logit_bias: { '1': -100 } });
    expect(params).not.toHaveProperty('tools');
    expect(params.max_tokens).toBe(16);
  });
});
