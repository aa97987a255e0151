import { HttpException, MethodNotAllowedException, NotFoundException } from '@nestjs/common';
import { contextLengthExceeded, DomainError, ErrorCode } from '@svc/errors';
import { ProtocolError, toErrorResponse } from './error-response';

describe('error responses', () => {
  it('keeps domain errors, with details only when present', () => {
    expect(toErrorResponse(new DomainError(ErrorCode.AdminRequired, 'Admin API key required'))).toEqual({
      status: 401,
      body: { error: 'Admin API key required' },
    });
    const detailed = toErrorResponse(DomainError.validation([{ path: ['model'], message: 'Required' }]));
    expect(detailed.status).toBe(400);
    expect(detailed.body.details).toEqual({ _errors: [], model: { _errors: ['Required'] } });
  });

  it('maps body parser failures to 400/413/415', () => {
    expect(toErrorResponse({ code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 }).status).toBe(400);
    expect(toErrorResponse({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }).status).toBe(413);
    expect(toErrorResponse({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }).status).toBe(415);
    // Nest hands Fastify's content-type refusal over as an HttpException with Fastify's wording.
    expect(toErrorResponse(new HttpException('Unsupported Media Type', 415)).body).toEqual({
      error: 'Unsupported Content-Type. Send application/json, or multipart/form-data where the endpoint takes a file.',
    });
  });

  it('answers unknown routes with 404 and unknown failures with a generic 500', () => {
    expect(toErrorResponse(new NotFoundException()).status).toBe(404);
    const internal = toErrorResponse(new Error('db password is hunter2'));
    expect(internal).toMatchObject({ status: 500, body: { error: 'Internal server error' } });
    expect(JSON.stringify(internal.body)).not.toContain('hunter2');
  });

  it("applies a DomainError's typed signals: retry-after as a header, OpenAI fields as OpenAI's error body", () => {
    const limited = toErrorResponse(
      new DomainError(ErrorCode.RateLimited, 'The model server is rate limiting requests. Retry after 7 seconds.', undefined, { retryAfterSeconds: 7 }),
    );
    expect(limited).toEqual({
      status: 429,
      body: { error: 'The model server is rate limiting requests. Retry after 7 seconds.' },
      headers: { 'retry-after': '7', 'retry-after-ms': '7000' },
    });
    // Every 429 and 503 says when to retry: precise when the error knows, 1 s when it does not.
    expect(toErrorResponse(new DomainError(ErrorCode.RateLimited, 'x', undefined, { retryAfterSeconds: 2.5 })).headers).toEqual({
      'retry-after': '3',
      'retry-after-ms': '2500',
    });
    expect(toErrorResponse(new DomainError(ErrorCode.ServiceUnavailable, 'busy')).headers).toEqual({ 'retry-after': '1', 'retry-after-ms': '1000' });
    expect(toErrorResponse(new HttpException('Service Unavailable', 503)).headers).toEqual({ 'retry-after': '1', 'retry-after-ms': '1000' });
    const tooLong = toErrorResponse(DomainError.fromPayload(contextLengthExceeded(1530, 1024).toPayload()));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual({
      error: {
        message: expect.stringMatching(/^This model's maximum context length is 1024 tokens\. However, your messages resulted in 1530 tokens/),
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    });
    expect(tooLong.headers).toBeUndefined();
  });

  describe('ERROR_STYLE=openai', () => {
    const openai = (err: unknown) => toErrorResponse(err, 'openai');

    it("answers every DomainError in OpenAI's shape, same status and headers, param from the first invalid field", () => {
      expect(openai(new DomainError(ErrorCode.Unauthorized, 'Invalid API key.'))).toEqual({
        status: 401,
        body: { error: { message: 'Invalid API key.', type: 'authentication_error', param: null, code: 'invalid_api_key' } },
      });
      expect(openai(DomainError.validation([{ path: ['temperature'], message: 'Too big: expected number to be <=2' }])).body).toEqual({
        error: {
          message: 'Invalid request: temperature: Too big: expected number to be <=2',
          type: 'invalid_request_error',
          param: 'temperature',
          code: 'invalid_value',
        },
      });
      const limited = new DomainError(ErrorCode.RateLimited, 'slow down', undefined, { retryAfterSeconds: 7, limitedOn: 'tokens' });
      expect(openai(limited)).toEqual({
        status: 429,
        body: { error: { message: 'slow down', type: 'tokens', param: null, code: 'rate_limit_exceeded' } },
        headers: toErrorResponse(limited).headers,
      });
      // context_length_exceeded is the same body in both styles.
      expect(openai(contextLengthExceeded(1530, 1024))).toEqual(toErrorResponse(contextLengthExceeded(1530, 1024)));
    });

    it("answers Nest's, Fastify's and unknown failures in OpenAI's shape too, never leaking a message", () => {
      expect(openai(new NotFoundException()).body).toMatchObject({ error: { type: 'invalid_request_error', code: 'not_found', param: null } });
      expect(openai(new MethodNotAllowedException())).toEqual({
        status: 405,
        body: { error: { message: 'Method not allowed.', type: 'invalid_request_error', param: null, code: 'method_not_allowed' } },
      });
      expect(openai({ code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 }).body).toMatchObject({ error: { code: 'invalid_json' } });
      expect(openai({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 })).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
      expect(openai({ statusCode: 406, message: 'Not acceptable here' }).body).toEqual({
        error: { message: 'Not acceptable here', type: 'invalid_request_error', param: null, code: 'not_acceptable' },
      });
      const internal = openai(new Error('db password is hunter2'));
      expect(internal).toMatchObject({
        status: 500,
        body: { error: { message: 'Internal server error', type: 'server_error', param: null, code: 'server_error' } },
      });
      expect(JSON.stringify(internal.body)).not.toContain('hunter2');
      expect(openai(new HttpException('boom', 502)).body).toEqual({
        error: { message: 'Internal server error', type: 'server_error', param: null, code: 'server_error' },
      });
    });

    it("leaves an outside protocol's own body alone (x402)", () => {
      const x402 = new ProtocolError(ErrorCode.InsufficientCredits, 'pay', { x402Version: 2 }, { 'payment-required': 'e30=' });
      expect(openai(x402)).toEqual(toErrorResponse(x402));
    });
  });
});
