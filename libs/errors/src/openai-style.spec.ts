import { contextLengthExceeded, DomainError, ErrorCode, firstInvalidField, OPENAI_ERRORS, openAiErrorBodyOf, openAiFieldsOf, statusOf } from '.';

describe("OpenAI's error style", () => {
  it('gives every ErrorCode a type and a code, by the kind of its status', () => {
    for (const code of Object.values(ErrorCode)) {
      const { type, code: openAiCode } = OPENAI_ERRORS[code];
      expect(openAiCode).toMatch(/^[a-z0-9_]+$/);
      const status = statusOf(code);
      if (status >= 500) expect(type).toBe('server_error');
      else if (status === 429) expect(type).toBe('requests');
      else expect(['invalid_request_error', 'authentication_error', 'permission_error', 'insufficient_quota']).toContain(type);
    }
  });

  it("uses OpenAI's own codes for the failures its clients branch on", () => {
    const fields = (code: ErrorCode) => openAiFieldsOf(new DomainError(code, 'x'));
    expect(fields(ErrorCode.Unauthorized)).toEqual({ type: 'authentication_error', code: 'invalid_api_key', param: null });
    expect(fields(ErrorCode.ModelNotFound)).toEqual({ type: 'invalid_request_error', code: 'model_not_found', param: null });
    expect(fields(ErrorCode.InsufficientCredits)).toEqual({ type: 'insufficient_quota', code: 'insufficient_quota', param: null });
    expect(fields(ErrorCode.RateLimited)).toEqual({ type: 'requests', code: 'rate_limit_exceeded', param: null });
    expect(fields(ErrorCode.Internal)).toEqual({ type: 'server_error', code: 'server_error', param: null });
  });

  it('types a 429 by the limit that refused it', () => {
    const tokens = new DomainError(ErrorCode.RateLimited, 'x', undefined, { limitedOn: 'tokens' });
    expect(openAiFieldsOf(tokens)).toEqual({ type: 'tokens', code: 'rate_limit_exceeded', param: null });
    // The signal crosses NATS, and a malformed one is dropped.
    expect(DomainError.fromPayload(JSON.parse(JSON.stringify(tokens.toPayload()))).limitedOn).toBe('tokens');
    expect(DomainError.fromPayload({ code: ErrorCode.RateLimited, message: 'x', limitedOn: 'days' } as never).limitedOn).toBeUndefined();
  });

  it('names the first invalid field of a validation error as param', () => {
    const err = DomainError.validation([
      { path: ['temperature'], message: 'Too big' },
      { path: ['model'], message: 'Required' },
    ]);
    expect(openAiErrorBodyOf(err)).toEqual({ error: { message: err.message, type: 'invalid_request_error', param: 'temperature', code: 'invalid_value' } });
    expect(openAiFieldsOf(DomainError.validation([{ path: ['messages', 0, 'role'], message: 'Invalid option' }])).param).toBe('messages.0.role');
    expect(openAiFieldsOf(DomainError.validation([{ path: [], message: 'Unrecognized key: "x"' }])).param).toBeNull();
    expect(openAiFieldsOf(new DomainError(ErrorCode.Validation, 'Malformed HTTP request.')).param).toBeNull();
  });

  it("keeps an error's own OpenAI fields (context_length_exceeded)", () => {
    expect(openAiErrorBodyOf(contextLengthExceeded(10, 8, 'input'))).toEqual({
      error: {
        message: expect.stringMatching(/maximum context length is 8 tokens/),
        type: 'invalid_request_error',
        param: 'input',
        code: 'context_length_exceeded',
      },
    });
  });
});

describe('firstInvalidField', () => {
  it('stops at the first field that carries its own errors', () => {
    expect(firstInvalidField(undefined)).toBeNull();
    expect(firstInvalidField({ _errors: ['Required'] })).toBeNull();
    expect(firstInvalidField({ _errors: [], input: { _errors: ['Too long'], 3: { _errors: ['Expected string'] } } })).toBe('input');
    expect(firstInvalidField({ _errors: ['x'], tools: { _errors: [], 1: { _errors: [], function: { _errors: ['Required'] } } } })).toBe('tools.1.function');
  });
});
