import { toErrorResponse } from './error-response';
import { clientErrorOf } from './client-error';

const answer = (code?: string) => toErrorResponse(clientErrorOf({ code }));

describe("Node's client errors", () => {
  it('answers requests that did not arrive in time with 408 and oversized headers with 431', () => {
    expect(answer('ERR_HTTP_REQUEST_TIMEOUT')).toMatchObject({ status: 408, body: { error: expect.stringMatching(/^The request was not received in time/) } });
    expect(answer('HPE_HEADER_OVERFLOW')).toEqual({ status: 431, body: { error: 'The request headers are too large.' } });
  });

  it("says what was malformed when Node's parser names it, in the one error shape", () => {
    expect(answer('HPE_INVALID_CONTENT_LENGTH')).toEqual({ status: 400, body: { error: 'Malformed HTTP request: invalid Content-Length.' } });
    expect(answer('HPE_UNEXPECTED_CONTENT_LENGTH').body).toEqual({ error: 'Malformed HTTP request: both Content-Length and Transfer-Encoding.' });
    expect(answer('HPE_SOMETHING_NEW')).toEqual({ status: 400, body: { error: 'Malformed HTTP request.' } });
    expect(answer(undefined).status).toBe(400);
  });
});
