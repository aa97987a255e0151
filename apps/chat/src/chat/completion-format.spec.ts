import { ChunkFactory, toCompletion } from './completion-format';

describe('completion-format', () => {
  const result = { text: 'A lamp.', finishReason: 'stop' as const, promptTokens: 5, completionTokens: 3 };

  // OpenAI's schemas type system_fingerprint as a string when present: null broke them (issue 32).
  it('a completion has no system_fingerprint, and every choice its logprobs (null when none)', () => {
    const completion = toCompletion('chatcmpl-1', 'svc-zoo-chat', [result, { ...result, text: 'A light.' }]);
    expect(completion).not.toHaveProperty('system_fingerprint');
    expect(completion).toMatchObject({ id: 'chatcmpl-1', object: 'chat.completion', model: 'svc-zoo-chat' });
    expect(completion.choices.map((c) => [c.index, c.message.content, c.logprobs, c.finish_reason])).toEqual([
      [0, 'A lamp.', null, 'stop'],
      [1, 'A light.', null, 'stop'],
    ]);
    expect(completion.usage).toEqual({ prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 });
  });

  it('no chunk has a system_fingerprint: role, content, tool calls, finish, usage, search results', () => {
    const chunks = new ChunkFactory('chatcmpl-2', 'svc-zoo-chat');
    const all = [
      chunks.role(),
      chunks.content('A'),
      ...chunks.toolCalls([{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }]),
      chunks.finish('stop'),
      chunks.usage({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }),
      chunks.searchResults([]),
    ];
    for (const chunk of all) {
      expect(chunk).not.toHaveProperty('system_fingerprint');
      expect(chunk).toMatchObject({ id: 'chatcmpl-2', object: 'chat.completion.chunk', model: 'svc-zoo-chat' });
    }
  });
});
