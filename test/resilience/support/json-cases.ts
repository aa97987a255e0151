import fc from 'fast-check';
import { Case } from './answer-checks';
import { auth, CaseFactory, NASTY, bodyRoutes } from './case-kit';
import { rawRequest } from './raw-http';
import { Route, urlOf } from './routes';

const MB = 1024 * 1024;
const PLACEHOLDER_JSON = JSON.stringify('\u0001fuzz\u0001');

export function jsonCase(route: Route, key: string, name: string, text: string | Buffer, headers: Record<string, string> = {}): Case {
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
