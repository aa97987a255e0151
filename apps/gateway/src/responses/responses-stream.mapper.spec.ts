import { ChatCompletionChunk } from '@svc/contracts';
import { responsesRequestSchema } from './responses-request.dto';
import { ResponsesStreamMapper, responsesStreamEncoder } from './responses-stream.mapper';
import { ResponseStreamEvent } from './responses.types';

const request = responsesRequestSchema.parse({ model: 'default', input: 'Hi' });
const identity = { id: 'resp_1', createdAt: 1700000000, model: 'svc-zoo-chat' };
const usage = { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 };

type Delta = ChatCompletionChunk['choices'][number]['delta'];
const chunk = (delta: Delta, finish: ChatCompletionChunk['choices'][number]['finish_reason'] = null): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'svc-zoo-chat',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});

/** The chat stream's chunks through a fresh mapper, ended with `finishReason`. */
function run(chunks: ChatCompletionChunk[], finishReason = 'stop'): ResponseStreamEvent[] {
  const mapper = new ResponsesStreamMapper(request, identity);
  return [...chunks.flatMap((c) => mapper.chunk(c)), ...mapper.end({ usage, finishReason })];
}

const deltas = (events: ResponseStreamEvent[], type: string) =>
  events
    .filter((e) => e.type === type)
    .map((e) => e.delta)
    .join('');

describe('chat chunks → Responses stream events', () => {
  it('a text answer: the documented event sequence, numbered, deltas concatenating to the done text and the final output', () => {
    const events = run([chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hel' }), chunk({ content: 'lo.' }), chunk({}, 'stop')]);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ response: { id: 'resp_1', status: 'in_progress', output: [], model: 'svc-zoo-chat' } });
    // No usage before there is one: OpenAI's schema types `usage` as an object, never null.
    for (const e of events.slice(0, 2)) expect(e.response).not.toHaveProperty('usage');
    const item = events[2].item as { id: string };
    expect(events[2]).toMatchObject({ output_index: 0, item: { type: 'message', status: 'in_progress', content: [] } });
    expect(events[3]).toMatchObject({ item_id: item.id, content_index: 0 });
    // OpenAI's OutputTextContent requires logprobs (empty: none are sent) in every part, added or done.
    expect(events[3].part).toEqual({ type: 'output_text', text: '', annotations: [], logprobs: [] });
    expect(events[7].part).toEqual({ type: 'output_text', text: 'Hello.', annotations: [], logprobs: [] });
    expect(deltas(events, 'response.output_text.delta')).toBe('Hello.');
    expect(events[6]).toMatchObject({ item_id: item.id, text: 'Hello.' });
    const part = { type: 'output_text', text: 'Hello.', annotations: [], logprobs: [] };
    expect(events[8]).toMatchObject({ item: { id: item.id, status: 'completed' } });
    expect((events[8].item as { content: unknown }).content).toEqual([part]);
    const response = events[9].response as { status: string; output: Array<{ id: string; content: unknown }>; usage: unknown };
    expect(response.status).toBe('completed');
    expect(response.output).toEqual([expect.objectContaining({ id: item.id, content: [part] })]);
    expect(response.usage).toEqual({
      input_tokens: 9,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 12,
    });
  });

  it('tool calls: a function_call item with argument deltas (whole or in pieces), done at the end', () => {
    const events = run(
      [
        chunk({ role: 'assistant', content: '' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } } as never] }),
        chunk({}, 'tool_calls'),
      ],
      'tool_calls',
    );
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[2]).toMatchObject({ item: { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '', status: 'in_progress' } });
    expect(events[5]).toMatchObject({ name: 'lookup', arguments: '{"q":"x"}' });
    expect((events[7].response as { output: unknown[] }).output).toEqual([expect.objectContaining({ arguments: '{"q":"x"}', status: 'completed' })]);
  });

  it('reasoning first, then the answer; cut by the token cap: response.incomplete', () => {
    const events = run([chunk({ content: '<thi' }), chunk({ content: 'nk>Hmm.</think>\n' }), chunk({ content: 'Yes' })], 'length');
    expect(deltas(events, 'response.reasoning_text.delta')).toBe('Hmm.');
    expect(deltas(events, 'response.output_text.delta')).toBe('Yes');
    const final = events.at(-1)!;
    expect(final).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } });
    expect((final.response as { output: Array<{ type: string; status: string }> }).output.map((i) => [i.type, i.status])).toEqual([
      ['reasoning', 'completed'],
      ['message', 'incomplete'],
    ]);
  });

  it('no output at all is an empty message; a failure mid-stream is an error event and response.failed', () => {
    expect(run([chunk({ role: 'assistant', content: '' })]).map((e) => e.type)).toContain('response.output_text.done');
    const mapper = new ResponsesStreamMapper(request, identity);
    const events = [...mapper.chunk(chunk({ content: 'Hi' })), ...mapper.fail('engine crashed')];
    expect(events.slice(-2)).toMatchObject([
      { type: 'error', code: 'server_error', message: 'engine crashed' },
      { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'engine crashed' } } },
    ]);
  });

  it('the encoder writes named SSE events', () => {
    const encoder = responsesStreamEncoder(new ResponsesStreamMapper(request, identity));
    const text = encoder.chunk(JSON.stringify(chunk({ content: 'Hi' })));
    expect(text.startsWith('event: response.created\ndata: {"type":"response.created","sequence_number":0,')).toBe(true);
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(5);
  });
});
