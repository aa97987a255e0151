import { chatRequestSchema, toChatParams } from './chat-request.dto';

describe('chat request validation', () => {
  const valid = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

  it('accepts an OpenAI request and normalises it for the chat service', () => {
    const body = chatRequestSchema.parse({
      ...valid,
      messages: [
        {
          role: 'system',
          content: [
            { type: 'text', text: 'be ' },
            { type: 'text', text: 'brief' },
          ],
        },
        ...valid.messages,
      ],
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
      passthrough: { logit_bias: { 1: 2 } },
    });
  });

  it.each([
    [{ model: 'm' }, 'messages'],
    [{ ...valid, messages: [] }, 'messages'],
    [{ ...valid, temperature: 3 }, 'temperature'],
    [{ ...valid, max_tokens: 0 }, 'max_tokens'],
    [{ ...valid, messages: [{ role: 'wizard', content: 'x' }] }, 'messages'],
    [{ ...valid, messages: [{ role: 'user', content: [{ type: 'hologram', hologram: {} }] }] }, 'messages'],
    [{ ...valid, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }, 'messages'],
    [{ ...valid, n: 9 }, 'n'],
    [{ ...valid, presence_penalty: 2.5 }, 'presence_penalty'],
    [{ ...valid, frequency_penalty: -3 }, 'frequency_penalty'],
    [{ ...valid, repetition_penalty: 0 }, 'repetition_penalty'],
    [{ ...valid, top_k: 1.5 }, 'top_k'],
    [{ ...valid, min_p: 1.2 }, 'min_p'],
    [{ ...valid, top_logprobs: 21 }, 'top_logprobs'],
    [{ ...valid, response_format: { type: 'yaml' } }, 'response_format'],
    [{ ...valid, response_format: { type: 'json_schema', json_schema: { schema: {} } } }, 'response_format'],
    [{ ...valid, tools: [{ type: 'function', function: { name: 'bad name' } }] }, 'tools'],
    [{ ...valid, tool_choice: 'always' }, 'tool_choice'],
    [{ ...valid, fallbacks: ['m2'] }, 'fallbacks'],
    [{ ...valid, messages: [{ role: 'tool', content: 'x' }] }, 'messages'],
  ])('rejects %j at %s', (body, field) => {
    const parsed = chatRequestSchema.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0].path[0]).toBe(field);
  });
});

describe('chat request features (content parts, tools, sampling, pass-through)', () => {
  it('keeps non-text parts, tool calls and features, and collects unknown fields for upstream engines', () => {
    const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==', detail: 'low' } };
    const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    // Sampling and log-probability fields reach the chat service under their OpenAI names.
    const sampling = { n: 2, top_k: 5, min_p: 0.1, repetition_penalty: 1.1, presence_penalty: -1, logprobs: true, top_logprobs: 2 };
    const body = chatRequestSchema.parse({
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'look: ' }, image] },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', content: 'done', tool_call_id: 'call_1' },
      ],
      ...sampling,
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'required',
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
      fallbacks: [{ model: 'backup' }],
      logit_bias: { 1: 2 },
      custom_vendor_flag: true,
    });
    const params = toChatParams(body, 'm');
    expect(params.messages[0]).toEqual({ role: 'user', content: 'look: ', parts: [{ type: 'text', text: 'look: ' }, image] });
    expect(params.messages[1]).toEqual({ role: 'assistant', content: '', tool_calls: [call] });
    expect(params.messages[2]).toEqual({ role: 'tool', content: 'done', tool_call_id: 'call_1' });
    expect(params).toMatchObject({ ...sampling, tool_choice: 'required', fallbacks: ['backup'] });
    expect(params.passthrough).toEqual({ logit_bias: { 1: 2 }, custom_vendor_flag: true });
  });
});
