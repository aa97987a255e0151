import fc from 'fast-check';
import { Case } from './answer-checks';
import { BOUNDARY, formBody, formContentType, FormPart } from './multipart';
import { rawRequest } from './raw-http';
import { Route, urlOf } from './routes';

/** Builds the cases of one category for a route; `key` is the ADMIN key every case carries. */
export type CaseFactory = (route: Route, key: string) => fc.Arbitrary<Case> | null;

const MB = 1024 * 1024;
const PLACEHOLDER_JSON = JSON.stringify('\u0001fuzz\u0001');

/** Strings that have broken parsers, databases and logs before: NUL, line breaks, lone surrogates, injections. */
const NASTY = ['\u0000', '\r\n', '\r', '\n', '\u2028', '\u0085', '\ud800', '\udfff', '%00', '%0d%0a', '\\', '"', "'; --", '${x}', '{{x}}', '\ufeff', '\u202e'];

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
/** Percent-encodes UTF-8 bytes (a lone surrogate, which encodeURIComponent refuses, becomes U+FFFD as a client would send it). */
const encode = (text: string) =>
  [...Buffer.from(text)]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
const bodyRoutes = (route: Route) => route.method === 'POST' || route.method === 'PATCH';

function jsonCase(route: Route, key: string, name: string, text: string | Buffer, headers: Record<string, string> = {}): Case {
  return {
    name: `${route.method} ${route.path}: ${name}`,
    request: rawRequest(route.method, urlOf(route), { ...auth(key), 'content-type': 'application/json', ...headers }, text),
    openAiErrors: route.openAiErrors,
  };
}

/** Every path into a JSON value (containers and leaves), plus a field the schema does not name. */
function pathsOf(value: unknown, keep: string[] = [], prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = prefix.length ? [prefix] : [['fuzz_extra']];
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (prefix.length === 0 && keep.includes(k)) continue;
      out.push(...pathsOf(v, keep, [...prefix, Array.isArray(value) ? Number(k) : k]));
    }
  }
  return out;
}

/** The baseline body as JSON text with the value at `path` replaced by `raw` (any JSON text, or not JSON at all). */
function withRaw(body: Record<string, unknown>, path: Array<string | number>, raw: string): string {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  node[path[path.length - 1]] = '\u0001fuzz\u0001';
  return JSON.stringify(copy).replace(PLACEHOLDER_JSON, () => raw);
}

/** Replaces one field (or adds one) with raw JSON text from `values`. */
function fieldCases(name: string, values: fc.Arbitrary<string>): CaseFactory {
  return (route, key) => {
    if (!route.json) return null;
    const json = route.json;
    return fc
      .tuple(fc.constantFrom(...pathsOf(json, route.keep)), values)
      .map(([path, raw]) => jsonCase(route, key, `${name} at ${path.join('.')} (${raw.length > 80 ? `${raw.length} chars` : raw})`, withRaw(json, path, raw)));
  };
}

export const malformedJson: CaseFactory = (route, key) => {
  if (!bodyRoutes(route)) return null;
  const text = JSON.stringify(route.json ?? { a: 1 });
  const at = fc.integer({ min: 0, max: text.length - 1 });
  const broken = fc.oneof(
    at.map((k) => text.slice(0, k)),
    fc.tuple(at, fc.constantFrom('{', '}', '[', ']', '"', ',', ':', '\\', ' ', '\u0000', 'x', '\ufeff')).map(([k, c]) => text.slice(0, k) + c + text.slice(k)),
    at.map((k) => text.slice(0, k) + text.slice(k + 1)),
    fc.string({ maxLength: 200 }),
    fc.constantFrom(
      '',
      'null',
      '[]',
      '"x"',
      '0',
      'true',
      '{"a":1}{"b":2}',
      '\ufeff{}',
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"polluted":1}}}',
      `${text},`,
    ),
  );
  return broken.map((body) => jsonCase(route, key, `malformed JSON (${body.length > 60 ? `${body.slice(0, 60)}...` : body})`, body));
};

export const wrongTypes = fieldCases(
  'wrong type',
  fc.oneof(
    fc.constantFrom('null', 'true', 'false', '[]', '{}', '[[]]', '[null]', '{"":null}', '"true"', '"1"'),
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
    fc.string({ maxLength: 40 }).map((s) => JSON.stringify(s)),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  ),
);

export const bounds = fieldCases(
  'bound',
  fc.constantFrom(
    '0',
    '-1',
    '-0',
    '0.5',
    '1e-7',
    '2147483648',
    '9007199254740993',
    '-9007199254740993',
    '1e308',
    '-1e308',
    '1e309',
    '-1e309',
    '5e-324',
    '123456789012345678901234567890',
    '""',
    '" "',
    JSON.stringify('a'.repeat(100_000)),
    JSON.stringify('9'.repeat(400)),
    `[${'0,'.repeat(99_999)}0]`,
    `[${'"a",'.repeat(9_999)}"a"]`,
    '"\\ud800"',
    '"\\udfff\\ud800"',
  ),
);

const HUGE_UNITS = ['x', '\u00e9', '\\u0000', '\\"', '\\n', '\ud83d\ude42'];
const hugeString = (mb: number, unit: string) => `"${unit.repeat(Math.ceil((mb * MB) / Buffer.byteLength(unit)))}"`;

/** Strings of 1 to 5 MB (more than a NATS message holds), of characters that grow when escaped or encoded. */
export const hugeStrings = fieldCases(
  'huge string',
  fc.tuple(fc.integer({ min: 1, max: 5 }), fc.constantFrom(...HUGE_UNITS)).map(([mb, unit]) => hugeString(mb, unit)),
);

/** Every field of every body (and one it does not name) at just over a NATS message (1.1 MB), not a sample. */
export function everyFieldHuge(route: Route, key: string): Case[] {
  if (!route.json) return [];
  const json = route.json;
  return pathsOf(json, route.keep).map((path, i) => {
    const unit = HUGE_UNITS[i % HUGE_UNITS.length];
    return jsonCase(route, key, `1.1 MB of ${JSON.stringify(unit)} at ${path.join('.')}`, withRaw(json, path, hugeString(1.1, unit)));
  });
}

/** Arrays or objects nested just past the gateway's limit, and far past any stack. */
export const deepNesting = fieldCases(
  'deep nesting',
  fc
    .tuple(fc.constantFrom(65, 1_000, 10_000, 100_000), fc.boolean())
    .map(([depth, arrays]) => (arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth))),
);

export const nulAndCrlf = fieldCases(
  'NUL/CRLF',
  fc.tuple(fc.string({ maxLength: 20 }), fc.constantFrom(...NASTY), fc.string({ maxLength: 20 })).map(([a, nasty, b]) => JSON.stringify(a + nasty + b)),
);

/** The route's form: its own, or its JSON body as text fields. */
function formOf(route: Route): FormPart[] {
  if (route.form) return route.form;
  return Object.entries(route.json ?? { a: 1 }).map(([name, v]) => ({ name, value: typeof v === 'string' ? v : JSON.stringify(v) }));
}

function formCase(route: Route, key: string, name: string, body: Buffer, contentType = formContentType()): Case {
  return {
    name: `${route.method} ${route.path}: multipart ${name}`,
    request: rawRequest(route.method, urlOf(route), { ...auth(key), 'content-type': contentType }, body),
    openAiErrors: route.openAiErrors,
  };
}

/** multipart/form-data broken every way a parser has tripped on: boundaries, truncation, delimiters, part headers, limits. */
export const brokenMultipart: CaseFactory = (route, key) => {
  if (!bodyRoutes(route)) return null;
  const form = formOf(route);
  const body = formBody(form);
  const closing = Buffer.from(`--${BOUNDARY}--\r\n`);
  const unclosed = body.subarray(0, body.length - closing.length);
  const at = fc.integer({ min: 1, max: body.length - 1 });
  const part = (head: string, value = 'x') => Buffer.from(`--${BOUNDARY}\r\n${head}\r\n\r\n${value}\r\n`, 'latin1');
  const fixed: Array<[string, Buffer, string?]> = [
    ['without a boundary', body, 'multipart/form-data'],
    ['with an empty boundary', body, 'multipart/form-data; boundary='],
    ['with another boundary', body, 'multipart/form-data; boundary=somethingElse'],
    ['with a 200-character boundary', formBody(form, 'b'.repeat(200)), formContentType('b'.repeat(200))],
    ['with a quoted boundary', body, `multipart/form-data; boundary="${BOUNDARY}"`],
    ['without the closing delimiter', unclosed],
    ['that is empty', Buffer.alloc(0)],
    ['that is only the closing delimiter', closing],
    ['with a part without Content-Disposition', Buffer.concat([part('Content-Type: text/plain'), body])],
    ['with a part without a name', Buffer.concat([part('Content-Disposition: form-data'), body])],
    ['with a part header without CRLF', Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"x`), body])],
    ['with a filename holding NUL, CRLF and ../', Buffer.concat([part('Content-Disposition: form-data; name="file"; filename="../\u0000a\r\nb.png"'), body])],
    ['with a field named __proto__', Buffer.concat([part('Content-Disposition: form-data; name="__proto__"'), body])],
    [
      'with a JSON field that is not JSON',
      Buffer.concat([part('Content-Disposition: form-data; name="meta"\r\nContent-Type: application/json', '{"a":'), body]),
    ],
    [
      'with a JSON field 10,000 deep',
      Buffer.concat([part('Content-Disposition: form-data; name="meta"\r\nContent-Type: application/json', '['.repeat(10_000) + ']'.repeat(10_000)), body]),
    ],
    ['with 81 parts', formBody([...form, ...Array.from({ length: 81 }, (_, i) => ({ name: `f${i}`, value: 'x' }))])],
    ['with 5 files', formBody([...form, ...Array.from({ length: 5 }, (_, i) => ({ name: `file${i}`, value: 'x', filename: `${i}.bin` }))])],
    ['with a field of 2 MB', formBody([...form, { name: 'fuzz_extra', value: 'x'.repeat(2 * MB) }])],
    ['with a field holding NUL and CRLF', formBody([...form.map((p) => (p.filename ? p : { ...p, value: `${String(p.value)}\u0000\r\n` }))])],
    ['with every field twice', formBody([...form, ...form])],
  ];
  return fc.oneof(
    fc.constantFrom(...fixed).map(([name, bytes, type]) => formCase(route, key, name, bytes, type)),
    at.map((k) => formCase(route, key, `truncated at byte ${k}`, body.subarray(0, k))),
    fc
      .tuple(at, fc.uint8Array({ minLength: 1, maxLength: 8 }))
      .map(([k, bytes]) =>
        formCase(route, key, `with bytes overwritten at ${k}`, Buffer.concat([body.subarray(0, k), Buffer.from(bytes), body.subarray(k + bytes.length)])),
      ),
  );
};

const encodedValue = fc.oneof(
  fc.string({ maxLength: 30 }).map(encode),
  fc.constantFrom(...NASTY).map(encode),
  fc.constantFrom('%', '%zz', '%e9', '%ff%fe', '%C0%AF', '..%2f..%2fetc%2fpasswd', '%2e%2e', 'a'.repeat(6_000), '-1', '1e309', '0x10', 'NaN', '[]'),
);

/** Query strings: unknown and repeated keys, bad percent-encoding, NUL, CRLF, long values, brackets. */
export const queries: CaseFactory = (route, key) => {
  if (route.method !== 'GET' && route.method !== 'DELETE') return null;
  const known = Object.keys(route.query ?? {});
  const name = fc.oneof(fc.constantFrom(...known, 'a', 'a[b][c]', '__proto__', 'constructor', ''), fc.string({ maxLength: 10 }).map(encode));
  return fc.array(fc.tuple(name, encodedValue, fc.constantFrom('=', '', '==')), { minLength: 1, maxLength: 6 }).map((pairs) => {
    const qs = pairs.map(([k, v, eq]) => `${k}${eq}${v}`).join('&');
    const path = `${urlOf(route, route.params, {})}?${qs}`;
    return {
      name: `${route.method} ${route.path}: query ?${qs.slice(0, 100)}`,
      request: rawRequest(route.method, path, auth(key)),
      openAiErrors: route.openAiErrors,
    };
  });
};

/** Path parameters: NUL, encoded slashes, dot segments, unicode, over-long values (431 past the header limit). */
export const pathParams: CaseFactory = (route, key) => {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  if (names.length === 0) return null;
  return fc.tuple(fc.constantFrom(...names), encodedValue, fc.constantFrom('', 'x'.repeat(20_000))).map(([param, value, pad]) => {
    const filled = route.path.replace(/:(\w+)/g, (_, n: string) => (n === param ? value + pad : encode(route.params?.[n] ?? n)));
    const url = `/api/v1${filled}`;
    return {
      name: `${route.method} ${route.path}: ${param}=${value.slice(0, 60)}${pad ? ' + 20 KB' : ''}`,
      request: rawRequest(route.method, url, { ...auth(key), 'content-type': 'application/json' }, route.json ? JSON.stringify(route.json) : ''),
    };
  });
};

/** Methods a route does not take (and ones no route takes), on the route's own path. */
export const methods: CaseFactory = (route, key) =>
  fc
    .constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'BREW', 'get', 'M-SEARCH')
    .filter((m) => m !== route.method)
    .map((m) => ({
      name: `${m} ${route.path}`,
      request: rawRequest(m, urlOf(route), { ...auth(key), 'content-type': 'application/json' }, '{}'),
      bodiless: m === 'HEAD',
    }));

/** Header-level damage: bad bytes, framing conflicts, odd media types and encodings, broken credentials. */
export const headers: CaseFactory = (route, key) => {
  const body = route.json ? JSON.stringify(route.json) : '{}';
  const url = urlOf(route);
  const head = (lines: string, payload = body) =>
    Buffer.concat([Buffer.from(`${route.method} ${url} HTTP/1.1\r\nhost: gateway\r\nconnection: close\r\n${lines}\r\n`, 'latin1'), Buffer.from(payload)]);
  const length = `content-length: ${Buffer.byteLength(body)}\r\n`;
  const typed = `${length}content-type: application/json\r\n`;
  const cases: Array<[string, Buffer]> = [
    ['NUL in a header value', head(`${typed}authorization: Bearer ${key}\u0000\r\n`)],
    ['bare CR in a header value', head(`${typed}x-a: a\rb\r\n`)],
    ['a header line without a colon', head(`${typed}not a header\r\n`)],
    ['a space in a header name', head(`${typed}x a: b\r\n`)],
    ['a 20 KB header', head(`${typed}x-big: ${'a'.repeat(20_000)}\r\n`)],
    ['two different Content-Lengths', head(`${typed}content-length: 3\r\n`)],
    ['Content-Length and chunked', head(`${typed}transfer-encoding: chunked\r\n`)],
    ['a bad chunk size', head(`content-type: application/json\r\ntransfer-encoding: chunked\r\n`, `zz\r\n${body}\r\n0\r\n\r\n`)],
    ['a negative Content-Length', head(`content-length: -1\r\ncontent-type: application/json\r\n`)],
    ['Content-Length: 1e3', head(`content-length: 1e3\r\ncontent-type: application/json\r\n`)],
    ['a garbage gzip body', head(`${typed}content-encoding: gzip\r\nauthorization: Bearer ${key}\r\n`)],
    ['no credentials', head(typed)],
    ['a malformed bearer', head(`${typed}authorization: Bearer\r\n`)],
    ['Basic credentials', head(`${typed}authorization: Basic ${Buffer.from('a:b').toString('base64')}\r\n`)],
    ['a 6 KB bearer', head(`${typed}authorization: Bearer svc_${'a'.repeat(6_000)}\r\n`)],
    ['two bearers', head(`${typed}authorization: Bearer ${key}\r\nauthorization: Bearer other\r\n`)],
    ['HTTP/1.0', Buffer.from(`${route.method} ${url} HTTP/1.0\r\n${typed}authorization: Bearer ${key}\r\n\r\n${body}`)],
    ['HTTP/9.9', Buffer.from(`${route.method} ${url} HTTP/9.9\r\n${typed}\r\n${body}`)],
    ['a request line with spaces in the path', Buffer.from(`${route.method} ${url} x y HTTP/1.1\r\n${typed}\r\n${body}`)],
    ['Expect: 100-continue', head(`${typed}expect: 100-continue\r\nauthorization: Bearer ${key}\r\n`)],
    ['Expect: something-else', head(`${typed}expect: something-else\r\nauthorization: Bearer ${key}\r\n`)],
  ];
  const contentTypes = fc.constantFrom(
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'APPLICATION/JSON',
    'application/json, text/plain',
    'application/octet-stream',
    'multipart/mixed; boundary=x',
    '',
    ';;;',
    `application/${'x'.repeat(3_000)}`,
  );
  const encodings = fc.constantFrom('gzip', 'br', 'deflate', '*', 'identity;q=0', 'br;q=0, gzip;q=1', 'gzip;q=nan', 'x'.repeat(500));
  return fc.oneof(
    fc.constantFrom(...cases).map(([name, request]) => ({ name: `${route.method} ${route.path}: ${name}`, request, openAiErrors: route.openAiErrors })),
    contentTypes.map((type) => ({
      name: `${route.method} ${route.path}: Content-Type ${type.slice(0, 40)}`,
      request: rawRequest(route.method, url, { ...auth(key), 'content-type': type }, body),
      openAiErrors: route.openAiErrors,
    })),
    encodings.map((enc) => ({
      name: `${route.method} ${route.path}: Accept-Encoding ${enc.slice(0, 40)}`,
      request: rawRequest(route.method, url, { ...auth(key), 'content-type': 'application/json', 'accept-encoding': enc }, body),
      openAiErrors: route.openAiErrors,
    })),
  );
};

/** The categories, with how many cases each draws per route (huge bodies are few: each is megabytes). */
export const CATEGORIES: Array<{ name: string; factory: CaseFactory; runs: number }> = [
  { name: 'malformed JSON', factory: malformedJson, runs: 60 },
  { name: 'wrong types', factory: wrongTypes, runs: 60 },
  { name: 'bounds', factory: bounds, runs: 30 },
  { name: 'huge strings (1-5 MB)', factory: hugeStrings, runs: 4 },
  { name: 'deep nesting', factory: deepNesting, runs: 8 },
  { name: 'NUL and CRLF', factory: nulAndCrlf, runs: 40 },
  { name: 'broken multipart', factory: brokenMultipart, runs: 40 },
  { name: 'query strings', factory: queries, runs: 40 },
  { name: 'path parameters', factory: pathParams, runs: 30 },
  { name: 'methods', factory: methods, runs: 8 },
  { name: 'headers', factory: headers, runs: 30 },
];
