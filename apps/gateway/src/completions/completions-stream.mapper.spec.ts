import { ChatCompletionChunk } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { completionChunks, toCompletionChunk } from './completions-stream.mapper';

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk' as const, created: 1_700_000_000, model: 'svc-zoo-chat', system_fingerprint: null };
const delta = (content: string | undefined, finish: ChatCompletionChunk['choices'][number]['finish_reason'] = null, index = 0): ChatCompletionChunk => ({
  ...base,
  choices: [{ index, delta: content === undefined ? {} : { content }, logprobs: null, finish_reason: finish }],
});

describe('chat chunks → text_completion chunks', () => {
  it('skips what a legacy client does not read: the role chunk, web sources', () => {
    expect(
      toCompletionChunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] }, 'cmpl-x'),
    ).toBeNull();
    expect(toCompletionChunk({ ...base, choices: [], svc_search_results: [] }, 'cmpl-x')).toBeNull();
  });

  it('sends text pieces, then the finish reason in a chunk of empty text', () => {
    expect(toCompletionChunk(delta('a lamp', null, 1), 'cmpl-x')).toEqual({
      id: 'cmpl-x',
      object: 'text_completion',
      created: 1_700_000_000,
      model: 'svc-zoo-chat',
      choices: [{ text: 'a lamp', index: 1, logprobs: null, finish_reason: null }],
    });
    expect(toCompletionChunk(delta(undefined, 'length'), 'cmpl-x')?.choices).toEqual([{ text: '', index: 0, logprobs: null, finish_reason: 'length' }]);
    expect(toCompletionChunk(delta(undefined, 'tool_calls'), 'cmpl-x')?.choices[0].finish_reason).toBe('stop');
  });

  // OpenAI's schema types system_fingerprint as a string when present: null broke it.
  it('leaves system_fingerprint out unless the chunk has one as a string', () => {
    expect(toCompletionChunk(delta('a'), 'cmpl-x')).not.toHaveProperty('system_fingerprint');
    const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
    expect(toCompletionChunk({ ...base, choices: [], usage }, 'cmpl-x')).not.toHaveProperty('system_fingerprint');
    expect(toCompletionChunk({ ...delta('a'), system_fingerprint: 'fp_1' }, 'cmpl-x')?.system_fingerprint).toBe('fp_1');
  });

  it('carries the log probabilities chat sends with the finish, and the usage chunk', () => {
    const finish = delta(undefined, 'stop');
    finish.choices[0].logprobs = { content: [{ token: 'a', logprob: -1, bytes: null, top_logprobs: [] }] };
    expect(toCompletionChunk(finish, 'cmpl-x')?.choices[0].logprobs).toEqual({ tokens: ['a'], token_logprobs: [-1], top_logprobs: [{}], text_offset: [0] });
    const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
    expect(toCompletionChunk({ ...base, choices: [], usage }, 'cmpl-x')).toMatchObject({ object: 'text_completion', choices: [], usage });
  });

  it('encodes SSE: data lines, nothing for skipped chunks, [DONE] at the end, errors as on chat', () => {
    const encoder = completionChunks('cmpl-x', 'openai');
    expect(encoder.chunk(JSON.stringify(delta('hi')))).toBe(
      `data: ${JSON.stringify({ id: 'cmpl-x', object: 'text_completion', created: 1_700_000_000, model: 'svc-zoo-chat', choices: [{ text: 'hi', index: 0, logprobs: null, finish_reason: null }] })}\n\n`,
    );
    expect(encoder.chunk(JSON.stringify(delta('')))).toBe('');
    expect(encoder.end({ usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, finishReason: 'stop' })).toBe('data: [DONE]\n\n');
    const failed = encoder.error('boom', new DomainError(ErrorCode.Upstream, 'boom'));
    expect(failed).toMatch(/^data: \{"error":\{"message":"boom"/);
  });
});
