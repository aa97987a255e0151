import { DomainError, ErrorCode } from '@svc/errors';
import { SERVER_LABEL, UpstreamErrors, UpstreamKind } from '.';

const KINDS: UpstreamKind[] = ['chat', 'embeddings', 'image', 'speech', 'transcription'];
const known = { hosts: ['gpu-box.internal', 'sd-webui'], secrets: ['sk-operator-secret-123'] };
const openAi = (message: string, code?: string) => JSON.stringify({ error: { message, type: 'invalid_request_error', code } });

/** One upstream answer, and what every engine kind must make of it. `{server}` is the kind's label. */
const TABLE: Array<{
  name: string;
  status: number;
  body: string;
  retryAfter?: string | string[] | null;
  expect: { status: number; code: ErrorCode; message: string; retryAfterSeconds?: number };
}> = [
  {
    name: 'OpenAI 400, with a URL, an IP, a host name and the key',
    status: 400,
    body: openAi('bad field, see http://10.0.0.7:8000/docs; 10.0.0.7:8000 on gpu-box.internal refused key sk-operator-secret-123'),
    expect: {
      status: 400,
      code: ErrorCode.Validation,
      message: 'The {server} rejected the request: bad field, see [url]; [address] on [server] refused key [key]',
    },
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
    expect: {
      status: 400,
      code: ErrorCode.Validation,
      message: 'The {server} rejected the request: width: too big for [address]; voice: unknown on [address]',
    },
  },
  {
    name: 'FastAPI 400 detail string with an IPv6 address and a public host',
    status: 400,
    body: JSON.stringify({ detail: 'upstream [fd00::5]:8080 and api.provider.example.com said no' }),
    expect: { status: 400, code: ErrorCode.Validation, message: 'The {server} rejected the request: upstream [address] and [server] said no' },
  },
  {
    name: 'web UI middleware 400 ({error: class, errors: text})',
    status: 400,
    body: JSON.stringify({ error: 'HTTPException', detail: '', errors: 'Bearer abc.def-123 rejected by sd-webui' }),
    expect: { status: 400, code: ErrorCode.Validation, message: 'The {server} rejected the request: Bearer [key] rejected by [server]' },
  },
  {
    name: 'llama.cpp 400 ({error: text})',
    status: 400,
    body: JSON.stringify({ error: 'n_predict too large' }),
    expect: { status: 400, code: ErrorCode.Validation, message: 'The {server} rejected the request: n_predict too large' },
  },
  {
    name: '400 that is not JSON',
    status: 400,
    body: '<html>nginx at 192.168.1.4</html>',
    expect: { status: 400, code: ErrorCode.Validation, message: 'The {server} rejected the request: no details' },
  },
  {
    name: '429 with retry-after seconds',
    status: 429,
    body: openAi('slow down, gpu-box.internal is busy'),
    retryAfter: '7',
    expect: { status: 429, code: ErrorCode.RateLimited, message: 'The {server} is rate limiting requests. Retry after 7 seconds.', retryAfterSeconds: 7 },
  },
  {
    name: '429 with retry-after as undici gives a repeated header',
    status: 429,
    body: '',
    retryAfter: ['3', '9'],
    expect: { status: 429, code: ErrorCode.RateLimited, message: 'The {server} is rate limiting requests. Retry after 3 seconds.', retryAfterSeconds: 3 },
  },
  {
    name: '429 without retry-after (fetch: null)',
    status: 429,
    body: '',
    retryAfter: null,
    expect: { status: 429, code: ErrorCode.RateLimited, message: 'The {server} is rate limiting requests. Retry after 1 seconds.', retryAfterSeconds: 1 },
  },
  {
    name: '401: the operator’s key',
    status: 401,
    body: openAi('invalid key sk-operator-secret-123'),
    expect: { status: 502, code: ErrorCode.Upstream, message: "The {server} refused this platform's credentials (HTTP 401)." },
  },
  {
    name: '403',
    status: 403,
    body: '',
    expect: { status: 502, code: ErrorCode.Upstream, message: "The {server} refused this platform's credentials (HTTP 403)." },
  },
  {
    name: '404 (unknown model or checkpoint)',
    status: 404,
    body: openAi('no model at http://gpu-box.internal/v1'),
    expect: { status: 502, code: ErrorCode.Upstream, message: 'The {server} answered HTTP 404.' },
  },
  { name: '408', status: 408, body: '', expect: { status: 504, code: ErrorCode.Timeout, message: 'The {server} timed out.' } },
  {
    name: '500 with a stack trace',
    status: 500,
    body: JSON.stringify({ error: 'RuntimeError', errors: 'CUDA out of memory on gpu-box.internal' }),
    expect: { status: 502, code: ErrorCode.Upstream, message: 'The {server} failed (HTTP 500).' },
  },
  { name: '502', status: 502, body: 'bad gateway', expect: { status: 502, code: ErrorCode.Upstream, message: 'The {server} failed (HTTP 502).' } },
  {
    name: '503',
    status: 503,
    body: openAi('loading'),
    expect: { status: 503, code: ErrorCode.ServiceUnavailable, message: 'The {server} is unavailable (HTTP 503). Retry later.' },
  },
  { name: '504', status: 504, body: '', expect: { status: 504, code: ErrorCode.Timeout, message: 'The {server} timed out.' } },
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
    for (const kind of ['image', 'speech', 'transcription'] as const) {
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
  const cases: Array<[string, unknown, 'request' | 'response', ErrorCode, string]> = [
    [
      'connection refused',
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:7860'), { code: 'ECONNREFUSED' }),
      'request',
      ErrorCode.Upstream,
      'The image server is unreachable.',
    ],
    [
      'fetch failed (cause: refused)',
      new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }),
      'request',
      ErrorCode.Upstream,
      'The image server is unreachable.',
    ],
    [
      'undici headers timeout',
      Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }),
      'request',
      ErrorCode.Timeout,
      'The image server timed out.',
    ],
    [
      'fetch connect timeout (cause)',
      new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'UND_ERR_CONNECT_TIMEOUT' }) }),
      'request',
      ErrorCode.Timeout,
      'The image server timed out.',
    ],
    [
      'AbortSignal.timeout()',
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      'request',
      ErrorCode.Timeout,
      'The image server timed out.',
    ],
    [
      'undici body timeout while reading',
      Object.assign(new Error('Body Timeout Error'), { code: 'UND_ERR_BODY_TIMEOUT' }),
      'response',
      ErrorCode.Timeout,
      'The image server timed out.',
    ],
    [
      'socket closed while reading',
      Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      'response',
      ErrorCode.Upstream,
      'The image server closed the connection.',
    ],
    [
      'malformed JSON',
      new SyntaxError('Unexpected token < in JSON at position 0'),
      'response',
      ErrorCode.Upstream,
      'The image server answered malformed JSON.',
    ],
  ];
  it.each(cases)('%s', (_name, err, phase, code, message) => {
    const mapped = errors.transport(err, phase);
    expect([mapped.code, mapped.message]).toEqual([code, message]);
  });

  it('passes DomainErrors through unchanged', () => {
    const own = new DomainError(ErrorCode.ServiceUnavailable, 'queue full');
    expect(errors.transport(own)).toBe(own);
  });
});
