import { ChatCompletion } from '@svc/contracts';
import { responsesRequestSchema } from './responses-request.dto';
import { toResponse } from './responses-response.mapper';

const request = responsesRequestSchema.parse({
  model: 'default',
  input: 'Hi',
  instructions: 'Be brief.',
  max_output_tokens: 30,
  metadata: { run: '7' },
  tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' }, strict: null }],
});

function completion(
  message: Partial<ChatCompletion['choices'][number]['message']>,
  finish: ChatCompletion['choices'][number]['finish_reason'] = 'stop',
): ChatCompletion {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1700000000,
    model: 'svc-zoo-chat',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, logprobs: null, finish_reason: finish }],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: { cached_tokens: 4 } },
  };
}

describe('chat completion → Responses response', () => {
  it('a text answer is one completed message item, with the usage, the cost and the request echoed', () => {
    const response = toResponse(completion({ content: 'Hello.' }), request, 'resp_1', { usd: 0.1, diem: 0.1 });
    expect(response).toMatchObject({
      id: 'resp_1',
      object: 'response',
      created_at: 1700000000,
      model: 'svc-zoo-chat',
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: 'Be brief.',
      max_output_tokens: 30,
      metadata: { run: '7' },
      store: false,
      previous_response_id: null,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [{ type: 'function', name: 'lookup', description: null, parameters: { type: 'object' }, strict: null }],
      cost: { usd: 0.1, diem: 0.1 },
    });
    // Every field OpenAI's ResponseUsage requires, cache_write_tokens included.
    expect(response.usage).toEqual({
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 17,
    });
    expect(response.output).toEqual([
      {
        type: 'message',
        id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello.', annotations: [], logprobs: [] }],
      },
    ]);
  });

  it('tool calls are function_call items (no empty message item); a cut answer is incomplete', () => {
    const calls = toResponse(
      completion({ tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] }, 'tool_calls'),
      request,
      'r',
      undefined,
    );
    expect(calls.output).toEqual([
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}', status: 'completed' },
    ]);
    expect(calls.status).toBe('completed');
    expect(calls).not.toHaveProperty('cost');

    const cut = toResponse(completion({ content: 'Hel' }, 'length'), request, 'r', undefined);
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ status: 'incomplete' }] });
  });

  it('a leading <think> block is a reasoning item before the message', () => {
    const response = toResponse(completion({ content: '<think>They greet me.</think>\n\nHello.' }), request, 'r', undefined);
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(response.output[0]).toMatchObject({ id: expect.stringMatching(/^rs_/), summary: [], content: [{ type: 'reasoning_text', text: 'They greet me.' }] });
    expect(response.output[1]).toMatchObject({ content: [{ text: 'Hello.' }] });
  });

  it('an empty answer is an empty message; text.format and a forced tool are echoed in the Responses shape', () => {
    const echo = responsesRequestSchema.parse({
      model: 'm',
      input: 'x',
      tool_choice: { type: 'function', name: 'lookup' },
      text: { format: { type: 'json_schema', name: 'thing', schema: { type: 'object' } } },
    });
    const response = toResponse(completion({ content: '' }), echo, 'r', undefined);
    expect(response.output).toMatchObject([{ type: 'message', content: [{ text: '' }] }]);
    expect(response.tool_choice).toEqual({ type: 'function', name: 'lookup' });
    expect(response.text).toEqual({ format: { type: 'json_schema', name: 'thing', schema: { type: 'object' } } });
  });
});
