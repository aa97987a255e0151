import { upstreamBody } from './openai-compatible.engine';

const signal = new AbortController().signal;

describe('upstreamBody', () => {
  it('sends a raw prompt as the legacy completions API has it: `prompt`, and logprobs as a count of alternatives', () => {
    const body = upstreamBody(
      { prompt: 'Once upon a time', maxTokens: 7, stop: ['\n'], seed: 2, logprobs: true, topLogprobs: 3, passthrough: { logit_bias: {} }, signal },
      'served',
      true,
    );
    expect(body).toMatchObject({
      logit_bias: {},
      model: 'served',
      prompt: 'Once upon a time',
      max_tokens: 7,
      stop: ['\n'],
      seed: 2,
      logprobs: 3,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(body).not.toHaveProperty('messages');
    expect(body).not.toHaveProperty('top_logprobs');
    expect(upstreamBody({ prompt: 'x', maxTokens: 1, logprobs: true, signal }, 'served', false).logprobs).toBe(0);
    expect(upstreamBody({ prompt: 'x', maxTokens: 1, signal }, 'served', false).logprobs).toBeUndefined();
  });

  it('puts the caller’s unknown fields first and lets ours win, copying each as its own field', () => {
    const passthrough = JSON.parse('{"model":"theirs","logit_bias":{"1":2},"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const body = upstreamBody({ messages: [{ role: 'user', content: 'Hi' }], maxTokens: 7, passthrough, signal }, 'served', false);
    expect(Object.keys(body).slice(0, 4)).toEqual(['model', 'logit_bias', '__proto__', 'messages']);
    expect(body.model).toBe('served');
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect((body as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(body))).toMatchObject({ model: 'served', logit_bias: { '1': 2 }, max_tokens: 7 });
  });

  it('sends a chat request’s messages, with chat’s logprobs and top_logprobs', () => {
    const body = upstreamBody({ messages: [{ role: 'user', content: 'Hi' }], maxTokens: 7, logprobs: true, topLogprobs: 3, signal }, 'served', false);
    expect(body).toMatchObject({ model: 'served', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 7, logprobs: true, top_logprobs: 3, stream: false });
    expect(body).not.toHaveProperty('prompt');
    expect(body).not.toHaveProperty('stream_options');
  });
});
