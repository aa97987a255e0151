import fc from 'fast-check';
import { Case } from './answer-checks';
import { auth, bodyRoutes, CaseFactory, encode, NASTY } from './case-kit';
import { BOUNDARY, formBody, formContentType, FormPart } from './multipart';
import { rawRequest } from './raw-http';
import { Route, urlOf } from './routes';

const MB = 1024 * 1024;

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
    ['with 17 files', formBody([...form, ...Array.from({ length: 17 }, (_, i) => ({ name: `file${i}`, value: 'x', filename: `${i}.bin` }))])],
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
