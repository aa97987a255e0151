import {
  CONTEXT_LENGTH_EXCEEDED,
  contextLengthExceeded,
  contextLengthExceededAs,
  DomainError,
  ErrorCode,
  ErrorPayload,
  detailsFromIssues,
  isContextLengthExceeded,
  statusOf,
} from '.';

describe('DetailedError details', () => {
  it('nests issues by field path with _errors at each level', () => {
    const details = detailsFromIssues([
      { path: ['messages', 0, 'role'], message: 'Invalid enum value' },
      { path: ['model'], message: 'Required' },
      { path: [], message: 'Unrecognized key "x"' },
    ]);
    expect(details).toEqual({
      _errors: ['Unrecognized key "x"'],
      model: { _errors: ['Required'] },
      messages: { _errors: [], 0: { _errors: [], role: { _errors: ['Invalid enum value'] } } },
    });
  });

  it('lists at most 100 issues in details, and the message counts them all', () => {
    const issues = Array.from({ length: 100_000 }, (_, i) => ({ path: ['input', i], message: 'Expected object, received number' }));
    const err = DomainError.validation(issues);
    const listed = Object.keys(err.details?.input as Record<string, unknown>).filter((k) => k !== '_errors');
    expect(listed).toHaveLength(100);
    expect(err.message).toMatch(/\(and 99997 more\)$/);
    expect(JSON.stringify(err.details).length).toBeLessThan(10_000);
  });

  it('summarises the first issues in the error string', () => {
    const err = DomainError.validation([{ path: ['model'], message: 'Required' }]);
    expect(err.message).toBe('Invalid request: model: Required');
    expect(err.status).toBe(400);
  });

  it('maps every code to an HTTP status', () => {
    for (const code of Object.values(ErrorCode)) expect(statusOf(code)).toBeGreaterThanOrEqual(400);
    expect(statusOf(ErrorCode.AdminRequired)).toBe(401);
    expect(statusOf(ErrorCode.Timeout)).toBe(504);
    expect(statusOf(ErrorCode.RequestTimeout)).toBe(408);
    expect(statusOf(ErrorCode.HeadersTooLarge)).toBe(431);
    expect(statusOf(ErrorCode.UriTooLong)).toBe(414);
  });

  it('carries retryAfterSeconds and OpenAI fields across NATS as typed fields, and drops malformed ones', () => {
    const limited = new DomainError(ErrorCode.RateLimited, 'slow down', undefined, { retryAfterSeconds: 9 });
    expect(limited.toPayload()).toEqual({ code: ErrorCode.RateLimited, message: 'slow down', retryAfterSeconds: 9 });
    expect(DomainError.fromPayload(JSON.parse(JSON.stringify(limited.toPayload())))).toMatchObject({ code: ErrorCode.RateLimited, retryAfterSeconds: 9 });
    const tooLong = DomainError.fromPayload(JSON.parse(JSON.stringify(contextLengthExceeded(10, 8).toPayload())));
    expect(isContextLengthExceeded(tooLong)).toBe(true);
    expect(tooLong.openai).toEqual({ type: 'invalid_request_error', code: CONTEXT_LENGTH_EXCEEDED, param: 'messages' });
    const forged = DomainError.fromPayload({ code: ErrorCode.Validation, message: 'x', retryAfterSeconds: -1, openai: { code: 1 } } as unknown as ErrorPayload);
    expect([forged.retryAfterSeconds, forged.openai]).toEqual([undefined, undefined]);
    expect(new DomainError(ErrorCode.Internal, 'plain').toPayload()).toEqual({ code: ErrorCode.Internal, message: 'plain' });
  });

  it('renames the field a context-length error blames, keeping the counts (Responses API: input)', () => {
    const asInput = contextLengthExceededAs(contextLengthExceeded(3000, 2048), 'input');
    expect(asInput.openai).toEqual({ type: 'invalid_request_error', code: CONTEXT_LENGTH_EXCEEDED, param: 'input' });
    expect(asInput.message).toBe(
      "This model's maximum context length is 2048 tokens. However, your input resulted in 3000 tokens. Please reduce the length of the input.",
    );
    expect(contextLengthExceededAs(contextLengthExceeded(), 'input').message).toBe(
      "The input exceeds this model's maximum context length. Please reduce the length of the input.",
    );
  });
});
