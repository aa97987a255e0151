import { chatRequestSchema, toChatParams } from './chat-request.dto';

describe('chat request validation', () => {
  const valid = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

  it('accepts an OpenAI request and normalises it for the chat service', () => {
    const body = chatRequestSchema.parse({
      ...valid,
      messages: [{ role: 'system', content: [{ type: 'text', text: 'be ' }, { type: 'text', text: 'brief' }] }, ...valid.messages],
      max_completion_tokens: 9,
      max_tokens: 100,
      stop: 'END',
      stream: true,
      stream_options: { include_usage: true },
      logit_bias: { 1: 2 },
    });
    expect(toChatParams(body, 'resolved')).toEqual({
      model: 'resolved',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      max_tokens: 9,
      stop: ['END'],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it.each([
    [{ model: 'm' }, 'messages'],
    [{ ...valid, messages: [] }, 'messages'],
    [{ ...valid, temperature: 3 }, 'temperature'],
    [{ ...valid, max_tokens: 0 }, 'max_tokens'],
    [{ ...valid, messages: [{ role: 'wizard', content: 'x' }] }, 'messages'],
    [{ ...valid, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] }, 'messages'],
    [{ ...valid, n: 2 }, 'n'],
  ])('rejects %j at %s', (body, field) => {
    const parsed = chatRequestSchema.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0].path[0]).toBe(field);
  });
});
