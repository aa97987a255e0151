import fc from 'fast-check';
import { jsonByteLength, jsonStringBytes } from './json-byte-length';

const stringified = (value: unknown) => {
  const json = JSON.stringify(value) as string | undefined;
  return json === undefined ? undefined : Buffer.byteLength(json);
};
/** Any UTF-16 code unit, lone surrogates and controls included. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

describe('jsonByteLength', () => {
  it('is the UTF-8 length of JSON.stringify for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => jsonByteLength(value) === stringified(value)),
      { numRuns: 2000 },
    );
  });

  it('counts every string as JSON.stringify writes it: escapes, controls, lone surrogates, pairs', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyUnit, maxLength: 64 }), (s) => jsonStringBytes(s) === stringified(s)),
      { numRuns: 5000 },
    );
    for (const s of ['', 'a"b\\c', '\u0000\u001f\b\t\n\f\r', '\ud83d\ude00', '\ud83d', '\ude00x', '\u00e9\u20ac\u007f'])
      expect(jsonStringBytes(s)).toBe(stringified(s));
  });

  it('skips what JSON.stringify skips and serializes what has its own JSON form', () => {
    const values: unknown[] = [
      { a: undefined, b: () => 1, c: 1 },
      [undefined, () => 1, Symbol('s')],
      undefined,
      { d: new Date(0), b: Buffer.from('hi'), n: NaN, i: -Infinity, z: -0 },
      Object.assign(Object.create(null) as object, { x: 'y' }),
    ];
    for (const value of values) expect(jsonByteLength(value)).toBe(stringified(value));
  });
});
