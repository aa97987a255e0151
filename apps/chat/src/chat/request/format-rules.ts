import { fieldError } from './content-parts';

/**
 * GBNF rules for string formats with their length bounds (`z.string().email().max(30)`): one rule
 * that keeps both, so an answer the grammar allows is never refused by the check after generation
 * (docs/chat.md, "Structured output"). Each rule is a quoted JSON string without escapes, so its
 * length is the length of the text between the quotes; the rules are subsets of what zod's and
 * ajv-formats' patterns accept.
 *
 * A format is a sequence of parts (a local part, "@", a hostname label, ...). Each part has a
 * shortest length, an everyday longest (a small model rambles otherwise until max_tokens) and a
 * longest it may stretch to; `allocate` shares the schema's [minLength, maxLength] out among the
 * parts, shrinking the widest first, and each part writes its rule for its share.
 */
interface Part {
  min: number;
  usual: number;
  most: number;
  /** The part's rule for lengths in [min, max] ('' for the empty string), or undefined when none fits. */
  rule(min: number, max: number): string | undefined;
}

const QUOTE = '"\\""';
/** Lengths past a minimum that a format with nothing else to fill is stretched by, as room to choose. */
const STRETCH_ROOM = 16;
const ALNUM = '[a-zA-Z0-9]';

/** `cls` repeated between m and n times (n >= m >= 0), as GBNF. */
export function repeat(cls: string, m: number, n: number): string {
  if (n === 0) return '';
  if (m === n) return m === 1 ? cls : `${cls}{${m}}`;
  if (m === 0 && n === 1) return `${cls}?`;
  return `${cls}{${m},${n}}`;
}

const join = (...rules: string[]): string => rules.filter((r) => r !== '').join(' ');

function fixed(text: string): Part {
  return { min: text.length, usual: text.length, most: text.length, rule: () => JSON.stringify(text) };
}

/** Fixed-width text (a date, a uuid): the rule as given. */
function fixedWidth(width: number, rule: string): Part {
  return { min: width, usual: width, most: width, rule: () => rule };
}

/** Characters of one class, or two runs of them joined by a dot (`first.last`): no leading, trailing or double dot. */
function dotted(cls: string, usual: number, most: number): Part {
  return {
    min: 1,
    usual,
    most,
    rule(a, b) {
      const one = repeat(cls, a, b);
      if (b < 3) return one;
      const head = Math.floor((b - 1) / 2);
      const tail = b - 1 - head;
      const tailMin = Math.max(1, a - 2);
      return tailMin > tail ? one : `(${one} | ${join(repeat(cls, 1, head), '"."', repeat(cls, tailMin, tail))})`;
    },
  };
}

/** A hostname label: letters, digits and inner hyphens. */
function label(usual: number, most: number): Part {
  return {
    min: 1,
    usual,
    most,
    rule(a, b) {
      if (b === 1) return ALNUM;
      if (a === 1) return `${ALNUM} (${join(repeat('[a-zA-Z0-9-]', 0, b - 2), ALNUM)})?`;
      return join(ALNUM, repeat('[a-zA-Z0-9-]', a - 2, b - 2), ALNUM);
    },
  };
}

/** A top-level domain: letters only, at least two. */
function topLevel(usual: number, most: number): Part {
  return { min: 2, usual, most, rule: (a, b) => repeat('[a-zA-Z]', a, b) };
}

/** An optional piece that is `lead` followed by characters of `cls` (a path, a fraction): length 0 or >= 2. */
function optionalTail(lead: string, cls: string, usual: number, most: number): Part {
  return {
    min: 0,
    usual,
    most,
    rule(a, b) {
      if (b < 2) return a === 0 ? '' : undefined;
      const body = join(lead, repeat(cls, Math.max(1, a - 1), b - 1));
      return a === 0 ? `(${body})?` : body;
    },
  };
}

// Days by month (no 29 February: zod's date pattern checks leap years); times in UTC with Z.
const DATE =
  '[0-9]{4} "-" (("0" [13578] | "1" [02]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) | ("0" [469] | "11") "-" ("0" [1-9] | [12] [0-9] | "30") | "02" "-" ("0" [1-9] | "1" [0-9] | "2" [0-8]))';
const TIME = '([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9]';
const fraction = (): Part => optionalTail('"."', '[0-9]', 0, 10);

const FORMATS: Record<string, () => Part[]> = {
  date: () => [fixedWidth(10, DATE)],
  'date-time': () => [fixedWidth(19, `${DATE} "T" ${TIME}`), fraction(), fixed('Z')],
  time: () => [fixedWidth(8, TIME), fraction(), fixed('Z')],
  uuid: () => [fixedWidth(36, '[0-9a-f]{8} "-" [0-9a-f]{4} "-" [1-8] [0-9a-f]{3} "-" [89ab] [0-9a-f]{3} "-" [0-9a-f]{12}')],
  email: () => [dotted('[a-zA-Z0-9_+-]', 16, 64), fixed('@'), label(16, 63), fixed('.'), topLevel(6, 24)],
  hostname: () => [label(16, 63), fixed('.'), topLevel(6, 24)],
  uri: () => [fixed('https://'), label(16, 63), fixed('.'), topLevel(6, 24), optionalTail('"/"', '[a-zA-Z0-9_-]', 16, 200)],
};

/**
 * The GBNF rule (a quoted JSON string) for `format` with lengths in [minLength, maxLength], or
 * undefined for a format without a rule here or a minimum longer than the rule's strings reach
 * (then a plain string, checked after generation). Throws a 400 naming `at` when no string of the
 * format fits the bounds.
 */
export function formatRule(format: string, minLength: number | undefined, maxLength: number | undefined, at: Array<string | number>): string | undefined {
  const lo = Math.max(0, Math.ceil(minLength ?? 0));
  const hi = maxLength === undefined ? Infinity : Math.floor(maxLength);
  if (format === 'ipv4') return ipv4Rule(lo, hi, at);
  const parts = FORMATS[format]?.();
  if (!parts) return undefined;
  const shortest = parts.reduce((sum, p) => sum + p.min, 0);
  const longest = parts.reduce((sum, p) => sum + p.most, 0);
  if (hi < shortest) throw fieldError([...at, 'maxLength'], `No ${format} string is shorter than ${shortest} characters: maxLength ${hi} leaves none.`);
  if (shortest === longest && lo > longest)
    throw fieldError([...at, 'minLength'], `Every ${format} string has ${longest} characters: minLength ${lo} leaves none.`);
  const ranges = allocate(parts, lo, hi);
  if (!ranges) return undefined;
  const rules = parts.map((p, i) => p.rule(ranges[i][0], ranges[i][1]));
  if (rules.some((r) => r === undefined)) throw fieldError([...at, 'minLength'], `No ${format} string has a length between ${lo} and ${hi}.`);
  return join(QUOTE, ...(rules as string[]), QUOTE);
}

/**
 * Each part's length range so that the total lies in [lo, hi]: everyday lengths, the widest
 * parts shrunk first while the total can exceed hi, parts stretched (and then their minimums
 * raised) while it cannot reach lo. Undefined when the parts cannot reach lo.
 */
export function allocate(parts: Part[], lo: number, hi: number): Array<[number, number]> | undefined {
  const ranges = parts.map((p): [number, number] => [p.min, Math.max(p.min, p.usual)]);
  const total = (side: 0 | 1) => ranges.reduce((sum, r) => sum + r[side], 0);
  for (let excess = total(1) - hi; excess > 0; excess--) {
    const widest = ranges.reduce((best, r, i) => (r[1] - r[0] > ranges[best][1] - ranges[best][0] ? i : best), 0);
    if (ranges[widest][1] === ranges[widest][0]) return undefined;
    ranges[widest][1]--;
  }
  // Stretch past lo when hi allows (a little room to choose), then raise the minimums to lo.
  let missing = lo > total(1) ? Math.min(hi, lo + STRETCH_ROOM) - total(1) : 0;
  parts.forEach((p, i) => {
    const grow = Math.max(0, Math.min(missing, p.most - ranges[i][1]));
    ranges[i][1] += grow;
    missing -= grow;
  });
  if (total(1) < lo) return undefined;
  missing = lo - total(0);
  ranges.forEach((r) => {
    const grow = Math.max(0, Math.min(missing, r[1] - r[0]));
    r[0] += grow;
    missing -= grow;
  });
  return ranges;
}

const OCTET: Record<number, string> = { 1: '[0-9]', 2: '[1-9] [0-9]', 3: '("1" [0-9] [0-9] | "2" [0-4] [0-9] | "25" [0-5])' };

/** Dotted-quad IPv4 addresses (no leading zeros) with lengths in [lo, hi]: the octet widths that fit. */
function ipv4Rule(lo: number, hi: number, at: Array<string | number>): string {
  if (lo <= 7 && hi >= 15) return join(QUOTE, [1, 2, 3, 4].map(() => `(${OCTET[1]} | ${OCTET[2]} | ${OCTET[3]})`).join(' "." '), QUOTE);
  const shapes: string[] = [];
  for (let code = 0; code < 81; code++) {
    const widths = [0, 1, 2, 3].map((k) => (Math.floor(code / 3 ** k) % 3) + 1);
    const length = widths.reduce((a, b) => a + b, 3);
    if (length >= lo && length <= hi) shapes.push(widths.map((w) => OCTET[w]).join(' "." '));
  }
  if (shapes.length === 0) throw fieldError([...at, 'maxLength'], `No ipv4 address has a length between ${lo} and ${hi} (7 to 15).`);
  return join(QUOTE, `(${shapes.join(' | ')})`, QUOTE);
}
