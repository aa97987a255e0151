import { NotFoundException } from '@nestjs/common';
import { DomainError, ErrorCode } from '@svc/errors';
import { toErrorResponse } from './error-response';

describe('error responses', () => {
  it('keeps domain errors, with details only when present', () => {
    expect(toErrorResponse(new DomainError(ErrorCode.AdminRequired, 'Admin API key required'))).toEqual({ status: 401, body: { error: 'Admin API key required' } });
    const detailed = toErrorResponse(DomainError.validation([{ path: ['model'], message: 'Required' }]));
    expect(detailed.status).toBe(400);
    expect(detailed.body.details).toEqual({ _errors: [], model: { _errors: ['Required'] } });
  });

  it('maps body parser failures to 400/413/415', () => {
    expect(toErrorResponse({ code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 }).status).toBe(400);
    expect(toErrorResponse({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }).status).toBe(413);
    expect(toErrorResponse({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }).status).toBe(415);
  });

  it('answers unknown routes with 404 and unknown failures with a generic 500', () => {
    expect(toErrorResponse(new NotFoundException()).status).toBe(404);
    const internal = toErrorResponse(new Error('db password is hunter2'));
    expect(internal).toMatchObject({ status: 500, body: { error: 'Internal server error' } });
    expect(JSON.stringify(internal.body)).not.toContain('hunter2');
  });
});
