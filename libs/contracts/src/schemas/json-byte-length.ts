/** Characters a JSON string does not write as themselves, or that are not one UTF-8 byte each. */
const NOT_PLAIN = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;
/** Escaped as two characters by JSON.stringify (\b \t \n \f \r). */
const SHORT_ESCAPES = new Set([8, 9, 10, 12, 13]);

/** Bytes of `JSON.stringify(s)` as UTF-8: quotes, escapes (`\uXXXX` for controls and lone surrogates) and multi-byte characters. */
export function jsonStringBytes(s: string): number {
  if (!NOT_PLAIN.test(s)) return s.length + 2;
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) n += 2;
    else if (c < 0x20) n += SHORT_ESCAPES.has(c) ? 2 : 6;
    else if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n += 4;
        i++;
      } else n += 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) n += 6;
    else n += 3;
  }
  return n;
}

const isPlainObject = (v: object) => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * `Buffer.byteLength(JSON.stringify(value))` without building the JSON (undefined where
 * JSON.stringify gives undefined): a 39 MB request body measured this way allocates nothing,
 * where serializing it made a 39 MB string per call (issue 28). Plain data is walked; anything
 * with `toJSON` or a prototype of its own (a Date, a Buffer) is serialized as before.
 */
export function jsonByteLength(value: unknown): number | undefined {
  switch (typeof value) {
    case 'string':
      return jsonStringBytes(value);
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let n = 2 + Math.max(0, value.length - 1);
        for (const item of value) n += jsonByteLength(item) ?? 4;
        return n;
      }
      if (isPlainObject(value) && typeof (value as { toJSON?: unknown }).toJSON !== 'function') {
        let n = 2;
        let fields = 0;
        for (const key of Object.keys(value)) {
          const bytes = jsonByteLength((value as Record<string, unknown>)[key]);
          if (bytes === undefined) continue;
          n += jsonStringBytes(key) + 1 + bytes;
          fields++;
        }
        return n + Math.max(0, fields - 1);
      }
      break;
    }
    default:
      break;
  }
  const json = JSON.stringify(value) as string | undefined;
  return json === undefined ? undefined : Buffer.byteLength(json);
}
