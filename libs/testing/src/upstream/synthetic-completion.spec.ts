import { chunkEvent, completionText, countPromptWords, parseChatRequest, usageOf } from './synthetic-completion';

describe('synthetic completion', () => {
  it('counts prompt words across string and text-part contents, ignoring other parts', () => {
    const messages = [
      { role: 'system', content: '  You are   terse. ' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hello there' },
          { type: 'image_url', image_url: { url: 'x' } },
        ],
      },
      { role: 'assistant', content: null },
    ];
    expect(countPromptWords(messages)).toBe(5);
  });

  it('writes obviously synthetic text', () => {
    expect(completionText(3)).toBe('tok0 tok1 tok2');
    expect(completionText(0)).toBe('');
  });

  it('reads the token limit from max_completion_tokens first, then max_tokens', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
    expect(parseChatRequest({ ...base, max_tokens: 5, max_completion_tokens: 3 })).toMatchObject({ maxTokens: 3 });
    expect(parseChatRequest({ ...base, max_tokens: 5 })).toMatchObject({ maxTokens: 5, stream: false, includeUsage: false });
    expect(parseChatRequest({ ...base, max_tokens: 0, stream: true, stream_options: { include_usage: true } })).toMatchObject({
      maxTokens: undefined,
      stream: true,
      includeUsage: true,
    });
  });

  it('explains what is wrong with an unusable request', () => {
    expect(parseChatRequest([])).toMatch(/JSON object/);
    expect(parseChatRequest({ messages: [{}] })).toMatch(/model/);
    expect(parseChatRequest({ model: 'm' })).toMatch(/messages/);
  });

  it('formats chunks as SSE events, with usage only when asked for', () => {
    const meta = { id: 'c1', created: 1, model: 'm' };
    const plain = JSON.parse(chunkEvent(meta, { content: 'tok0' }, null, false).slice('data: '.length));
    const withUsage = JSON.parse(chunkEvent(meta, null, null, true, usageOf(2, 3)).slice('data: '.length));

    expect(chunkEvent(meta, {}, 'stop', false)).toMatch(/^data: \{.*\}\n\n$/);
    expect(plain).not.toHaveProperty('usage');
    expect(plain.choices[0]).toEqual({ index: 0, delta: { content: 'tok0' }, logprobs: null, finish_reason: null });
    expect(withUsage).toMatchObject({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 } });
  });
});
