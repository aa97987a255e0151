import { ErrorCode, statusOf } from '@svc/errors';
import { UpstreamErrors } from '@svc/upstream';

/** The web UI's failures as SdapiImageEngine maps them: the shared mapper, told the server's host. */
const sdapiError = (status: number, body: string, serverHost?: string) => new UpstreamErrors('image', { hosts: [serverHost] }).http(status, body);

describe('sdapi failures (through @svc/upstream)', () => {
  const status = (code: number, body: unknown = {}) => statusOf(sdapiError(code, JSON.stringify(body), 'gpu-box.internal').code);

  it('maps statuses like the OpenAI-compatible image engine', () => {
    expect([status(400), status(422), status(429), status(408), status(504), status(503)]).toEqual([400, 400, 429, 504, 504, 503]);
    // Bad credentials, an unknown checkpoint and crashes are the server's problem, not the caller's.
    expect([status(401), status(403), status(404), status(500)]).toEqual([502, 502, 502, 502]);
  });

  it("keeps the web UI's message for validation errors, in each of its shapes, without locating the server", () => {
    expect(
      sdapiError(
        422,
        JSON.stringify({
          detail: [
            { loc: ['body', 'width'], msg: 'value is not a valid integer' },
            { loc: ['body', 'steps'], msg: 'too big' },
          ],
        }),
      ).message,
    ).toBe('The image server rejected the request: width: value is not a valid integer; steps: too big');
    expect(sdapiError(422, JSON.stringify({ detail: "Script 'x' not found" })).message).toBe("The image server rejected the request: Script 'x' not found");
    const leaky = sdapiError(
      400,
      JSON.stringify({ error: 'HTTPException', detail: '', errors: 'see http://10.0.0.7:7860/docs or 10.0.0.7:7860 on gpu-box.internal' }),
      'gpu-box.internal',
    );
    expect(leaky.code).toBe(ErrorCode.Validation);
    expect(leaky.message).toBe('The image server rejected the request: see [url] or [address] on [server]');
    expect(sdapiError(422, 'not json').message).toBe('The image server rejected the request: no details');
  });

  it('never passes on the text of other failures', () => {
    const err = sdapiError(500, JSON.stringify({ error: 'RuntimeError', errors: 'CUDA out of memory on gpu-box.internal' }));
    expect(err.code).toBe(ErrorCode.Upstream);
    expect(err.message).toBe('The image server failed (HTTP 500).');
  });
});
