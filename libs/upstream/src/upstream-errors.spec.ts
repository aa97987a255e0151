import { DomainError, ErrorCode } from '@svc/errors';
import { SERVER_LABEL, UpstreamErrors, UpstreamKind } from '.';

const KINDS: UpstreamKind[] = ['chat', 'embeddings', 'image', 'speech', 'transcription', 'video'];
const known = { hosts: ['gpu-box.internal', 'sd-webui'], secrets: ['sk-operator-secret-123'] };
const openAi = (message: string, code?: string) => JSON.stringify({ error: { message, type: 'invalid_request_error', code } });

type Outcome = { status: number; code: ErrorCode; message: string; retryAfterSeconds?: number };

/** What the caller gets, by kind of upstream answer; `{server}` is the engine kind's label. */
const rejected = (detail: string): Outcome => ({ status: 400, code: ErrorCode.Validation, message: `The {server} rejected the request: ${detail}` });
const rateLimited = (seconds: number): Outcome => ({
  status: 429,
  code: ErrorCode.RateLimited,
  message: `The {server} is rate limiting requests. Retry after ${seconds} seconds.`,
  retryAfterSeconds: seconds,
});
const badGateway = (message: string): Outcome => ({ status: 502, code: ErrorCode.Upstream, message: `The {server} ${message}` });
const timedOut: Outcome = { status: 504, code: ErrorCode.Timeout, message: 'The {server} timed out.' };
const unavailable: Outcome = { status: 503, code: ErrorCode.ServiceUnavailable, message: 'The {server} is unavailable (HTTP 503). Retry later.' };

/** One upstream answer, and what every engine kind must make of it. */
const TABLE: Array<{ name: string; status: number; body: string; retryAfter?: string | string[] | null; expect: Outcome }> = [
  {
    name: 'OpenAI 400, with a URL, an IP, a host name and the key',
    status: 400,
    body: openAi('bad field, see http://10.0.0.7:8000/docs; 10.0.0.7:8000 on gpu-box.internal refused key sk-operator-secret-123'),
    expect: rejected('bad field, see [url]; [address] on [server] refused key [key]'),
  },
  {
    name: 'FastAPI 422 validation list, naming sd-webui:7860 and localhost',
    status: 422,
    body: JSON.stringify({
      detail: [
        { loc: ['body', 'width'], msg: 'too big for sd-webui:7860' },
        { loc: ['body', 'voice'], msg: 'unknown on localhost' },
      ],
    }),
    expect: rejected('width: too big for [address]; voice: unknown on [address]'),
  },
  {
    name: 'FastAPI 400 detail string with an IPv6 address and a public host',
    status: 400,
    body: JSON.stringify({ detail: 'upstream [fd00::5]:8080 and api.provider.example.com said no' }),
    expect: rejected('upstream [address] and [server] said no'),
  },
  {
    name: 'web UI middleware 400 ({error: class, errors: text})',
    status: 400,
    body: JSON.stringify({ error: 'HTTPException', detail: '', errors: 'Bearer abc.def-123 rejected by sd-webui' }),
    expect: rejected('Bearer [key] rejected by [server]'),
  },
  { name: 'llama.cpp 400 ({error: text})', status: 400, body: JSON.stringify({ error: 'n_predict too large' }), expect: rejected('n_predict too large') },
  { name: '400 that is not JSON', status: 400, body: '<html>nginx at 192.168.1.4</html>', expect: rejected('no details') },
  { name: '429 with retry-after seconds', status: 429, body: openAi('slow down, gpu-box.internal is busy'), retryAfter: '7', expect: rateLimited(7) },
  { name: '429 with retry-after as undici gives a repeated header', status: 429, body: '', retryAfter: ['3', '9'], expect: rateLimited(3) },
  { name: '429 without retry-after (fetch: null)', status: 429, body: '', retryAfter: null, expect: rateLimited(1) },
  {
    name: '401: the operator’s key',
    status: 401,
    body: openAi('invalid key sk-operator-secret-123'),
    expect: badGateway("refused this platform's credentials (HTTP 401)."),
  },
  { name: '403', status: 403, body: '', expect: badGateway("refused this platform's credentials (HTTP 403).") },
  { name: '404 (unknown model or checkpoint)', status: 404, body: openAi('no model at http://gpu-box.internal/v1'), expect: badGateway('answered HTTP 404.') },
  { name: '408', status: 408, body: '', expect: timedOut },
  {
    name: '500 with a stack trace',
    status: 500,
    body: JSON.stringify({ error: 'RuntimeError', errors: 'CUDA out of memory on gpu-box.internal' }),
    expect: badGateway('failed (HTTP 500).'),
  },
  { name: '502', status: 502, body: 'bad gateway', expect: badGateway('failed (HTTP 502).') },
  { name: '503', status: 503, body: openAi('loading'), expect: unavailable },
  { name: '504', status: 504, body: '', expect: timedOut },
];

describe('UpstreamErrors.http: one mapping for every engine kind', () => {
  describe.each(KINDS)('%s', (kind) => {
    const errors = new UpstreamErrors(kind, known);
    it.each(TABLE)('$name → $expect.status', ({ status, body, retryAfter, expect: want }) => {
      const err = errors.http(status, body, retryAfter);
      expect(err).toBeInstanceOf(DomainError);
      expect({ status: err.status, code: err.code, message: err.message, retryAfterSeconds: err.retryAfterSeconds }).toEqual({
        ...want,
        message: want.message.replace('{server}', SERVER_LABEL[kind]),
      });
      const wire = JSON.stringify(err.toPayload());
      for (const leak of ['10.0.0.7', '192.168.1.4', 'gpu-box', 'sd-webui', 'localhost', 'fd00', 'provider.example', 'sk-operator', 'abc.def', 'http://'])
        expect(wire).not.toContain(leak);
    });
  });

  it('carries an upstream context_length_exceeded as OpenAI fields for chat and embeddings, and as a plain 400 elsewhere', () => {
    const body = openAi('too long', 'context_length_exceeded');
    for (const [kind, param] of [
      ['chat', 'messages'],
      ['embeddings', 'input'],
    ] as const) {
      const err = new UpstreamErrors(kind).http(400, body);
      expect([err.status, err.openai]).toEqual([400, { type: 'invalid_request_error', code: 'context_length_exceeded', param }]);
      expect(err.details).not.toHaveProperty('code');
      expect(DomainError.fromPayload(JSON.parse(JSON.stringify(err.toPayload()))).openai).toEqual(err.openai);
    }
    for (const kind of ['image', 'speech', 'transcription', 'video'] as const) {
      const err = new UpstreamErrors(kind).http(400, body);
      expect([err.status, err.openai, err.message]).toEqual([400, undefined, `The ${SERVER_LABEL[kind]} rejected the request: too long`]);
    }
  });

  it('reads an HTTP-date retry-after and caps upstream text at 300 characters', () => {
    const later = new Date(Date.now() + 30_000).toUTCString();
    const seconds = new UpstreamErrors('chat').http(429, '', later).retryAfterSeconds!;
    expect(seconds).toBeGreaterThanOrEqual(29);
    expect(seconds).toBeLessThanOrEqual(31);
    const long = new UpstreamErrors('chat').http(400, openAi('x'.repeat(5_000)));
    expect(long.message.length).toBeLessThanOrEqual('The model server rejected the request: '.length + 300);
  });
});

describe('UpstreamErrors.transport', () => {
  const errors = new UpstreamErrors('image');
  const withCode = (err: Error, code: string) => Object.assign(err, { code });
  /** What fetch throws when the connection fails: the cause carries the code. */
  const fetchFailed = (code: string) => new TypeError('fetch failed', { cause: withCode(new Error('x'), code) });
  const upstream = (what: string) => [ErrorCode.Upstream, `The image server ${what}`] as const;
  const unreachable = upstream('is unreachable.');
  const timedOut = [ErrorCode.Timeout, 'The image server timed out.'] as const;
  const cases: Array<[string, unknown, 'request' | 'response', readonly [ErrorCode, string]]> = [
    ['connection refused', withCode(new Error('connect ECONNREFUSED 10.0.0.7:7860'), 'ECONNREFUSED'), 'request', unreachable],
    ['fetch failed (cause: refused)', fetchFailed('ECONNREFUSED'), 'request', unreachable],
    ['undici headers timeout', withCode(new Error('Headers Timeout Error'), 'UND_ERR_HEADERS_TIMEOUT'), 'request', timedOut],
    ['fetch connect timeout (cause)', fetchFailed('UND_ERR_CONNECT_TIMEOUT'), 'request', timedOut],
    ['AbortSignal.timeout()', new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'request', timedOut],
    ['undici body timeout while reading', withCode(new Error('Body Timeout Error'), 'UND_ERR_BODY_TIMEOUT'), 'response', timedOut],
    ['socket closed while reading', withCode(new Error('other side closed'), 'UND_ERR_SOCKET'), 'response', upstream('closed the connection.')],
    ['malformed JSON', new SyntaxError('Unexpected token < in JSON at position 0'), 'response', upstream('answered malformed JSON.')],
  ];
  it.each(cases)('%s', (_name, err, phase, want) => {
    const mapped = errors.transport(err, phase);
    expect([mapped.code, mapped.message]).toEqual(want);
  });

  it('passes DomainErrors through unchanged', () => {
    const own = new DomainError(ErrorCode.ServiceUnavailable, 'queue full');
    expect(errors.transport(own)).toBe(own);
  });
});
