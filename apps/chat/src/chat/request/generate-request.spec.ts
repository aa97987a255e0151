import { modelSchema } from '@svc/catalog';
import { DomainError } from '@svc/errors';
import { toGenerateRequest } from './generate-request';

const model = (capabilities: Record<string, boolean> = {}) =>
  modelSchema.parse({
    id: 'm',
    name: 'm',
    type: 'text',
    engine: { kind: 'embedded-llama', file: 'x.gguf' },
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } },
    maxCompletionTokens: 64,
    capabilities: { supportsLogProbs: true, supportsFunctionCalling: true, ...capabilities },
  });
const signal = new AbortController().signal;

describe('toGenerateRequest', () => {
  it('gives the engine a raw prompt as it is, with no messages, and the same sampling, stop and logprobs as a chat request', () => {
    const raw = toGenerateRequest(
      model(),
      { model: 'm', prompt: 'Once upon a time', max_tokens: 500, stop: ['\n'], seed: 4, logprobs: true, top_logprobs: 2 },
      signal,
    );
    expect(raw).toMatchObject({ prompt: 'Once upon a time', maxTokens: 64, stop: ['\n'], seed: 4, logprobs: true, topLogprobs: 2 });
    expect(raw.messages).toBeUndefined();
    const chat = toGenerateRequest(model(), { model: 'm', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 }, signal);
    expect(chat).toMatchObject({ messages: [{ role: 'user', content: 'Hi' }], maxTokens: 8 });
    expect(chat.prompt).toBeUndefined();
  });

  it('refuses what a raw prompt cannot carry, and what the model cannot do, naming the field', () => {
    const tools = [{ type: 'function' as const, function: { name: 'f' } }];
    expect(() => toGenerateRequest(model(), { model: 'm', prompt: 'x', tools }, signal)).toThrow(/tools need a chat template/);
    const noLogprobs = () => toGenerateRequest(model({ supportsLogProbs: false }), { model: 'm', prompt: 'x', logprobs: true }, signal);
    expect(noLogprobs).toThrow(DomainError);
    expect(noLogprobs).toThrow(/log probabilities/);
  });
});
