import { toChatParams } from '../chat/chat-request.dto';
import { responsesRequestSchema } from './responses-request.dto';
import { toChatRequest } from './responses-request.mapper';

const chatParamsOf = (body: Record<string, unknown>) => toChatParams(toChatRequest(responsesRequestSchema.parse({ model: 'm', ...body })), 'resolved');

describe('Responses request → chat completion request', () => {
  it('a string input is one user message after the instructions (as a system message)', () => {
    expect(chatParamsOf({ input: 'Hi', instructions: 'Be brief.', max_output_tokens: 20, temperature: 0.3, top_p: 0.9, store: true })).toEqual({
      model: 'resolved',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      max_tokens: 20,
      temperature: 0.3,
      top_p: 0.9,
    });
  });

  it('typed items: messages with parts, a function call joined to the assistant turn, its output as a tool message; reasoning left out', () => {
    const params = chatParamsOf({
      input: [
        { role: 'developer', content: 'Use tools.' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'Weather ' },
            { type: 'input_text', text: 'in Oslo?' },
          ],
        },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.', annotations: [] }] },
        { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call', call_id: 'call_2', name: 'weather', arguments: '{"city":"Bergen"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'rain' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'sun' }] },
        { type: 'function_call_output', call_id: 'call_3', output: { temp: 3 } },
      ],
    });
    const call = (id: string, city: string) => ({ id, type: 'function', function: { name: 'weather', arguments: `{"city":"${city}"}` } });
    expect(params.messages).toEqual([
      { role: 'developer', content: 'Use tools.' },
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: 'Looking.', tool_calls: [call('call_1', 'Oslo'), call('call_2', 'Bergen')] },
      { role: 'tool', content: 'rain', tool_call_id: 'call_1' },
      { role: 'tool', content: 'sun', tool_call_id: 'call_2' },
      { role: 'tool', content: '{"temp":3}', tool_call_id: 'call_3' },
    ]);
  });

  it('a function call with no assistant turn before it is an assistant turn of its own', () => {
    const params = chatParamsOf({
      input: [
        { role: 'user', content: 'Go' },
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
      ],
    });
    expect(params.messages[1]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
    });
  });

  it('images keep their parts (input_image with a URL string, or the reference image_url object)', () => {
    const params = chatParamsOf({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is it?' },
            { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'low' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ],
    });
    expect(params.messages[0].parts).toEqual([
      { type: 'text', text: 'What is it?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
      { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
    ]);
  });

  it('function tools in OpenAI flat form or the reference nested form, tool_choice either way, text.format as response_format', () => {
    const schema = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] };
    const params = chatParamsOf({
      input: 'x',
      tools: [
        { type: 'function', name: 'flat', description: null, parameters: { type: 'object' }, strict: true },
        { type: 'function', function: { name: 'nested', parameters: { type: 'object' } } },
      ],
      tool_choice: { type: 'function', name: 'flat' },
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'thing', schema, strict: true } },
    });
    expect(params.tools).toEqual([
      { type: 'function', function: { name: 'flat', parameters: { type: 'object' }, strict: true } },
      { type: 'function', function: { name: 'nested', parameters: { type: 'object' } } },
    ]);
    expect(params.tool_choice).toEqual({ type: 'function', function: { name: 'flat' } });
    expect(params.parallel_tool_calls).toBe(false);
    expect(params.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'thing', schema, strict: true } });
    expect(chatParamsOf({ input: 'x', text: { format: { type: 'json_object' } } }).response_format).toEqual({ type: 'json_object' });
  });

  it('reasoning.effort goes on to upstream engines; web_search is svc_parameters.enable_web_search on', () => {
    const body = toChatRequest(
      responsesRequestSchema.parse({ model: 'm', input: 'x', reasoning: { effort: 'low' }, web_search: true, svc_parameters: { disable_thinking: true } }),
    );
    expect(toChatParams(body, 'r').passthrough).toEqual({ reasoning_effort: 'low' });
    expect(body.svc_parameters).toEqual({ disable_thinking: true, enable_web_search: 'on' });
  });
});
