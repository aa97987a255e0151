import { DomainError } from '@svc/errors';
import { parseBody } from '../http/parse-body';
import { responsesRequestSchema } from './responses-request.dto';

/** The 400's message and the `details` path it names. */
function refusal(body: Record<string, unknown>): { message: string; details: unknown } {
  try {
    parseBody(responsesRequestSchema, { model: 'm', input: 'hi', ...body });
  } catch (err) {
    if (err instanceof DomainError) return { message: err.message, details: err.details };
  }
  throw new Error('accepted');
}

describe('Responses request validation', () => {
  it('accepts what the openai SDK sends, unknown fields included', () => {
    expect(() =>
      parseBody(responsesRequestSchema, {
        model: 'm',
        input: [{ role: 'user', content: 'hi' }],
        store: false,
        include: ['reasoning.encrypted_content'],
        metadata: { run: '1' },
        truncation: 'auto',
        service_tier: 'auto',
        previous_response_id: null,
        background: false,
        stream_options: { include_obfuscation: false },
      }),
    ).not.toThrow();
  });

  it.each([
    ['previous_response_id (stateless)', { previous_response_id: 'resp_1' }, /previous_response_id cannot be used\. This API is stateless/],
    ['conversation (stateless)', { conversation: 'conv_1' }, /conversation cannot be used/],
    ['background (stateless)', { background: true }, /background: true cannot be used/],
    ['item_reference (stateless)', { input: [{ type: 'item_reference', id: 'msg_1' }] }, /item_reference cannot be used/],
    ['uploaded files', { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] }, /file_id \(uploaded files\) cannot be used/],
    ['an input_file part', { input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'x' }] }] }, /Content part type must be one of/],
    ['an unknown item type', { input: [{ type: 'web_search_call', id: 'w' }] }, /Input item type must be one of/],
    ['a role items cannot have', { input: [{ role: 'tool', content: 'x' }] }, /role/],
    ['a hosted tool', { tools: [{ type: 'web_search' }] }, /Only function tools are supported/],
    ['a bad function name', { tools: [{ type: 'function', name: 'has space', parameters: {} }] }, /Function names are/],
    ['a bad tool_choice', { tool_choice: 'sometimes' }, /tool_choice must be/],
    ['an unknown text.format', { text: { format: { type: 'yaml' } } }, /text/],
    ['a json_schema without a name', { text: { format: { type: 'json_schema', schema: {} } } }, /name/],
    ['a zero max_output_tokens', { max_output_tokens: 0 }, /max_output_tokens/],
    ['a temperature over 2', { temperature: 3 }, /temperature/],
    ['an empty input list', { input: [] }, /input/],
    ['no input', { input: undefined }, /input/],
    ['a function call output without output', { input: [{ type: 'function_call_output', call_id: 'c' }] }, /output/],
    ['an unknown reasoning effort', { reasoning: { effort: 'extreme' } }, /effort/],
  ])('refuses %s with a 400 naming it', (_, body, message) => {
    const answer = refusal(body);
    expect(`${answer.message} ${JSON.stringify(answer.details)}`).toMatch(message);
  });
});
