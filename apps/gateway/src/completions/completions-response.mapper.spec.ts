import { ChatCompletion } from '@svc/contracts';
import { newCompletionId, toCompletionLogprobs, toTextCompletion } from './completions-response.mapper';

/** The prompt of these answers, not echoed. */
const prompt = { text: 'A lamp is', echo: false };

const completion = (over: Partial<ChatCompletion['choices'][number]> = {}): ChatCompletion => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'svc-zoo-chat',
  choices: [{ index: 0, message: { role: 'assistant', content: 'a light', refusal: null }, logprobs: null, finish_reason: 'length', ...over }],
  usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
  system_fingerprint: null,
});

describe('chat completion → text_completion', () => {
  it('has OpenAI’s shape: the continuation as text, the same usage, model and created', () => {
    expect(toTextCompletion(completion(), 'cmpl-x', undefined, prompt)).toEqual({
      id: 'cmpl-x',
      object: 'text_completion',
      created: 1_700_000_000,
      model: 'svc-zoo-chat',
      choices: [{ text: 'a light', index: 0, logprobs: null, finish_reason: 'length' }],
      usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
    });
  });

  // OpenAI's schema (CreateCompletionResponse) types system_fingerprint as a string when present: null broke it.
  it('leaves system_fingerprint out unless the completion has one as a string', () => {
    expect(toTextCompletion(completion(), 'cmpl-x', undefined, prompt)).not.toHaveProperty('system_fingerprint');
    const { system_fingerprint: _, ...none } = completion();
    expect(toTextCompletion(none, 'cmpl-x', undefined, prompt)).not.toHaveProperty('system_fingerprint');
    expect(toTextCompletion({ ...completion(), system_fingerprint: 'fp_1' }, 'cmpl-x', undefined, prompt).system_fingerprint).toBe('fp_1');
  });

  it('adds the cost, as chat does, and keeps every choice', () => {
    const two = completion();
    two.choices.push({ index: 1, message: { role: 'assistant', content: null, refusal: null }, logprobs: null, finish_reason: 'tool_calls' });
    const cost = { usd: 0.0001, diem: 0.0001 } as never;
    const body = toTextCompletion(two, 'cmpl-x', cost, prompt);
    expect(body.cost).toBe(cost);
    expect(body.choices[1]).toEqual({ text: '', index: 1, logprobs: null, finish_reason: 'stop' });
  });

  it('turns chat log probabilities into the legacy parallel lists', () => {
    const logprobs = {
      content: [
        {
          token: 'a',
          logprob: -0.5,
          bytes: [97],
          top_logprobs: [
            { token: 'a', logprob: -0.5, bytes: [97] },
            { token: 'the', logprob: -1.5, bytes: null },
          ],
        },
        { token: ' light', logprob: -0.25, bytes: null, top_logprobs: [] },
      ],
    };
    // text_offset counts from the prompt's start, as OpenAI's does: the first token's is the prompt's length (9).
    expect(toCompletionLogprobs(logprobs, prompt)).toEqual({
      tokens: ['a', ' light'],
      token_logprobs: [-0.5, -0.25],
      top_logprobs: [{ a: -0.5, the: -1.5 }, {}],
      text_offset: [9, 10],
    });
    expect(toCompletionLogprobs(null, prompt)).toBeNull();
    expect(toTextCompletion(completion({ logprobs }), 'cmpl-x', undefined, prompt).choices[0].logprobs?.tokens).toEqual(['a', ' light']);
  });

  it('counts text_offset in characters (code points), as OpenAI does, not UTF-16 units', () => {
    const tokens = (...texts: string[]) => ({ content: texts.map((token) => ({ token, logprob: -1, bytes: null, top_logprobs: [] })) });
    expect(toCompletionLogprobs(tokens('🙂', ' ok'), { text: 'Héllo 🙂', echo: false })?.text_offset).toEqual([7, 8]);
  });

  it('with echo, puts the prompt before each choice’s continuation', () => {
    const two = completion();
    two.choices.push({ index: 1, message: { role: 'assistant', content: ' bright', refusal: null }, logprobs: null, finish_reason: 'stop' });
    const body = toTextCompletion(two, 'cmpl-x', undefined, { text: 'A lamp is', echo: true });
    expect(body.choices.map((c) => c.text)).toEqual(['A lamp isa light', 'A lamp is bright']);
    expect(body.usage).toEqual(two.usage);
  });

  it('makes fresh cmpl- ids', () => {
    const [a, b] = [newCompletionId(), newCompletionId()];
    expect(a).toMatch(/^cmpl-[0-9a-f]{24}$/);
    expect(a).not.toBe(b);
  });
});
