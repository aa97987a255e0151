import { DomainError, ErrorCode } from '@svc/errors';
import { chatCompletionChunks } from './sse-streamer';

describe('chat completion chunks', () => {
  const failure = DomainError.fromPayload({ code: ErrorCode.ServiceUnavailable, message: 'The chat service stopped answering.' });

  it('writes a failure after the first chunk as an {error} data line with the message (the default style)', () => {
    expect(chatCompletionChunks('standard').error(failure.message, failure)).toBe('data: {"error":"The chat service stopped answering."}\n\n');
  });

  it("writes it in OpenAI's shape with ERROR_STYLE=openai", () => {
    const line = chatCompletionChunks('openai').error(failure.message, failure);
    expect(line.endsWith('\n\n')).toBe(true);
    expect(JSON.parse(line.slice('data: '.length))).toEqual({
      error: { message: 'The chat service stopped answering.', type: 'server_error', param: null, code: 'service_unavailable' },
    });
  });

  it('passes chunks through and ends with [DONE] in both styles', () => {
    for (const style of ['standard', 'openai'] as const) {
      expect(chatCompletionChunks(style).chunk('{"id":"c"}')).toBe('data: {"id":"c"}\n\n');
      expect(chatCompletionChunks(style).end({} as never)).toBe('data: [DONE]\n\n');
    }
  });
});
