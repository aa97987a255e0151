import { DomainError, ErrorCode, detailsFromIssues, statusOf } from '.';

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

  it('summarises the first issues in the error string', () => {
    const err = DomainError.validation([{ path: ['model'], message: 'Required' }]);
    expect(err.message).toBe('Invalid request: model: Required');
    expect(err.status).toBe(400);
  });

  it('maps every code to an HTTP status', () => {
    for (const code of Object.values(ErrorCode)) expect(statusOf(code)).toBeGreaterThanOrEqual(400);
    expect(statusOf(ErrorCode.AdminRequired)).toBe(401);
    expect(statusOf(ErrorCode.Timeout)).toBe(504);
  });
});
