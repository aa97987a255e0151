import { ChatCompletionChunk } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { completionChunks, toCompletionChunk } from './completions-stream.mapper';

/** The prompt these chunks continue, not echoed. */
const prompt = { text: 'A lamp is', echo: false };
const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk' as const, created: 1_700_000_000, model: 'svc-zoo-chat', system_fingerprint: null };
const delta = (content: string | undefined, finish: ChatCompletionChunk['choices'][number]['finish_reason'] = null, index = 0): ChatCompletionChunk => ({
  ...base,
  choices: [{ index, delta: content === undefined ? {} : { content }, logprobs: null, finish_reason: finish }],
});

describe('chat chunks → text_completion chunks', () => {
  it('skips what a legacy client does not read: the role chunk, web sources', () => {
    expect(
      toCompletionChunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] }, 'cmpl-x', prompt),
    ).toBeNull();
    expect(toCompletionChunk({ ...base, choices: [], svc_search_results: [] }, 'cmpl-x', prompt)).toBeNull();
  });

  it('sends text pieces, then the finish reason in a chunk of empty text', () => {
    expect(toCompletionChunk(delta('a lamp', null, 1), 'cmpl-x', prompt)).toEqual({
      id: 'cmpl-x',
      object: 'text_completion',
      created: 1_700_000_000,
      model: 'svc-zoo-chat',
      choices: [{ text: 'a lamp', index: 1, logprobs: null, finish_reason: null }],
    });
    expect(toCompletionChunk(delta(undefined, 'length'), 'cmpl-x', prompt)?.choices).toEqual([{ text: '', index: 0, logprobs: null, finish_reason: 'length' }]);
    expect(toCompletionChunk(delta(undefined, 'tool_calls'), 'cmpl-x', prompt)?.choices[0].finish_reason).toBe('stop');
  });

  // OpenAI's schema types system_fingerprint as a string when present: null broke it.
  it('leaves system_fingerprint out unless the chunk has one as a string', () => {
    expect(toCompletionChunk(delta('a'), 'cmpl-x', prompt)).not.toHaveProperty('system_fingerprint');
    const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
    expect(toCompletionChunk({ ...base, choices: [], usage }, 'cmpl-x', prompt)).not.toHaveProperty('system_fingerprint');
    expect(toCompletionChunk({ ...delta('a'), system_fingerprint: 'fp_1' }, 'cmpl-x', prompt)?.system_fingerprint).toBe('fp_1');
  });

  it('carries the log probabilities chat sends with the finish, and the usage chunk', () => {
    const finish = delta(undefined, 'stop');
    finish.choices[0].logprobs = { content: [{ token: 'a', logprob: -1, bytes: null, top_logprobs: [] }] };
    expect(toCompletionChunk(finish, 'cmpl-x', prompt)?.choices[0].logprobs).toEqual({
      tokens: ['a'],
      token_logprobs: [-1],
      top_logprobs: [{}],
      text_offset: [9],
    });
    const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
    expect(toCompletionChunk({ ...base, choices: [], usage }, 'cmpl-x', prompt)).toMatchObject({ object: 'text_completion', choices: [], usage });
  });

  it('with echo, starts each choice’s first chunk with the prompt, once', () => {
    const encoder = completionChunks('cmpl-x', 'openai', { text: 'A lamp is', echo: true });
    const texts = [delta(' a', null, 0), delta(' light'), delta(undefined, 'length'), delta(' bright', null, 1), delta(undefined, 'stop', 1)].map((chunk) => {
      const line = encoder.chunk(JSON.stringify(chunk));
      return (JSON.parse(line.replace(/^data: /, '')) as { choices: Array<{ text: string }> }).choices[0].text;
    });
    expect(texts).toEqual(['A lamp is a', ' light', '', 'A lamp is bright', '']);
  });

  it('encodes SSE: data lines, nothing for skipped chunks, [DONE] at the end, errors as on chat', () => {
    const encoder = completionChunks('cmpl-x', 'openai', prompt);
    expect(encoder.chunk(JSON.stringify(delta('hi')))).toBe(
      `data: ${JSON.stringify({ id: 'cmpl-x', object: 'text_completion', created: 1_700_000_000, model: 'svc-zoo-chat', choices: [{ text: 'hi', index: 0, logprobs: null, finish_reason: null }] })}\n\n`,
    );
    expect(encoder.chunk(JSON.stringify(delta('')))).toBe('');
    expect(encoder.end({ usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, finishReason: 'stop' })).toBe('data: [DONE]\n\n');
    const failed = encoder.error('boom', new DomainError(ErrorCode.Upstream, 'boom'));
    expect(failed).toMatch(/^data: \{"error":\{"message":"boom"/);
  });
});
