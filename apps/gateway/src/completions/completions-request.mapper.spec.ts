import { toChatParams } from '../chat/chat-request.dto';
import { parseBody } from '../http/parse-body';
import { completionsRequestSchema } from './completions-request.dto';
import { toChatRequest } from './completions-request.mapper';

const chatOf = (body: Record<string, unknown>) => toChatRequest(parseBody(completionsRequestSchema, { model: 'm', prompt: 'Once upon a time', ...body }));

describe('completions request → chat request', () => {
  it('runs the prompt as one user message, with max_tokens 16 and no service system prompt by default', () => {
    expect(chatOf({})).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'Once upon a time' }],
      max_tokens: 16,
      svc_parameters: { include_svc_system_prompt: false },
    });
  });

  it('takes the one prompt of a list', () => {
    expect(chatOf({ prompt: ['A lamp is'] }).messages).toEqual([{ role: 'user', content: 'A lamp is' }]);
  });

  it('carries sampling, stop, n, seed, stream and usage as chat has them', () => {
    const chat = chatOf({
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
    expect(chat).toMatchObject({
      max_tokens: 40,
      temperature: 0.2,
      top_p: 0.9,
      n: 2,
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
    expect(chat).not.toHaveProperty('best_of');
    expect(toChatParams(chat, 'm')).toMatchObject({ stop: ['\n'], n: 2, stream: true, stream_options: { include_usage: true }, fallbacks: ['other'] });
  });

  it('asks chat for k alternatives per token for logprobs: k', () => {
    expect(chatOf({ logprobs: 3 })).toMatchObject({ logprobs: true, top_logprobs: 3 });
    expect(chatOf({ logprobs: 0 })).toMatchObject({ logprobs: true, top_logprobs: 0 });
    expect(chatOf({ logprobs: null })).not.toHaveProperty('logprobs');
  });

  it('keeps the service system prompt when the caller names it, in the body or the model suffix', () => {
    expect(chatOf({ svc_parameters: { include_svc_system_prompt: true } }).svc_parameters).toEqual({ include_svc_system_prompt: true });
    expect(chatOf({ model: 'm:include_svc_system_prompt=true' }).svc_parameters).toBeUndefined();
    expect(chatOf({ svc_parameters: { strip_thinking_response: true } }).svc_parameters).toEqual({
      include_svc_system_prompt: false,
      strip_thinking_response: true,
    });
  });

  it('sends unknown fields on to upstream engines, and leaves chat-only fields behind', () => {
    const chat = chatOf({
      logit_bias: { '1': -100 },
      messages: [{ role: 'system', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'f' } }],
      max_completion_tokens: 500,
      echo: false,
    });
    expect(chat.messages).toEqual([{ role: 'user', content: 'Once upon a time' }]);
    const params = toChatParams(chat, 'm');
    expect(params.passthrough).toEqual({ logit_bias: { '1': -100 } });
    expect(params).not.toHaveProperty('tools');
    expect(params.max_tokens).toBe(16);
  });
});
