/**
 * GBNF rules for what node-llama-cpp's JSON-schema grammar cannot say itself: integer ranges and
 * the email and uuid string formats. A rule travels inside the schema as a placeholder const
 * string, `svcgbnf-<hex of the rule>` (hex: no escaping inside the grammar text); the worker swaps
 * the placeholder's literal for the rule after node-llama-cpp has built the grammar
 * (llama-worker.mjs, `withRules`).
 */
export const RULE_PREFIX = 'svcgbnf-';

/** A schema node the worker replaces with `rule` (a GBNF expression matching one JSON value). */
export function ruleNode(rule: string): { const: string } {
  return { const: RULE_PREFIX + Buffer.from(rule, 'utf8').toString('hex') };
}

/** The rule a placeholder const stands for (tests and the worker read it back the same way). */
export function ruleOf(placeholder: string): string | undefined {
  return placeholder.startsWith(RULE_PREFIX) ? Buffer.from(placeholder.slice(RULE_PREFIX.length), 'hex').toString('utf8') : undefined;
}

const QUOTE = '"\\""';
// Dot-separated atoms (no leading, trailing or double dot) and hostname labels: what zod's and
// ajv-formats' email patterns both accept, bounded to everyday lengths (a small model rambles
// otherwise until max_tokens).
const ATOM = '[a-zA-Z0-9_+-]{1,20}';
const LABEL = '[a-zA-Z0-9] ([a-zA-Z0-9-]{0,20} [a-zA-Z0-9])?';

// Days by month (no 29 February: zod's date pattern checks leap years); time without fractions.
const DATE =
  '[0-9]{4} "-" (("0" [13578] | "1" [02]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) | ("0" [469] | "11") "-" ("0" [1-9] | [12] [0-9] | "30") | "02" "-" ("0" [1-9] | "1" [0-9] | "2" [0-8]))';
const TIME = '([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9]';

/** Grammars for string formats: a quoted JSON string, so no escapes are needed inside. */
export const FORMAT_RULES: Record<string, string> = {
  date: `${QUOTE} ${DATE} ${QUOTE}`,
  // UTC with Z: what both zod's z.iso.datetime() pattern and ajv-formats accept.
  'date-time': `${QUOTE} ${DATE} "T" ${TIME} "Z" ${QUOTE}`,
  email: `${QUOTE} ${ATOM} ("." ${ATOM}){0,2} "@" ${LABEL} ("." ${LABEL}){0,2} "." [a-zA-Z]{2,10} ${QUOTE}`,
  uuid: `${QUOTE} [0-9a-f]{8} "-" [0-9a-f]{4} "-" [1-8] [0-9a-f]{3} "-" [89ab] [0-9a-f]{3} "-" [0-9a-f]{12} ${QUOTE}`,
};

/** Past this many digits a bound is not worth a grammar (zod's safe-integer bounds): validated after. */
const MAX_BOUND_DIGITS = 15;
const UNBOUNDED_TAIL = 15;

/**
 * A GBNF expression for the integers in [min, max] (either side may be open), without leading
 * zeros, or undefined when neither side is bounded tightly enough to be worth it.
 */
export function integerRangeRule(min: bigint | undefined, max: bigint | undefined): string | undefined {
  const near = (b: bigint | undefined): bigint | undefined => (b !== undefined && abs(b).toString().length <= MAX_BOUND_DIGITS ? b : undefined);
  const lo = near(min);
  const hi = near(max);
  if (lo === undefined && hi === undefined) return undefined;
  const parts: string[] = [];
  // Negative part: -|x| for x in [lo, min(hi, -1)].
  if (lo === undefined || lo < 0n) {
    const top = hi !== undefined && hi < 0n ? -hi : 1n;
    parts.push(`"-" (${lo === undefined ? atLeast(top) : between(top, -lo)})`);
  }
  // Non-negative part: [max(lo, 0), hi].
  if (hi === undefined || hi >= 0n) {
    const from = lo !== undefined && lo > 0n ? lo : 0n;
    parts.push(hi === undefined ? atLeast(from) : between(from, hi));
  }
  return parts.length === 1 ? parts[0] : `(${parts.join(' | ')})`;
}

const abs = (n: bigint): bigint => (n < 0n ? -n : n);

/**
 * A GBNF expression for numbers in the integer bounds [min, max] (from integerBounds): the
 * integers in range, and non-negative decimals whose integer part leaves room below max.
 */
export function numberRangeRule(min: bigint | undefined, max: bigint | undefined): string | undefined {
  const whole = integerRangeRule(min, max);
  if (!whole) return undefined;
  const from = min !== undefined && min > 0n ? min : 0n;
  const to = max === undefined ? undefined : max - 1n;
  if (to !== undefined && to < from) return whole;
  const fraction = integerRangeRule(from, to);
  return fraction ? `(${whole} | ${fraction} "." [0-9]{1,6})` : whole;
}

/** Non-negative integers >= lo. */
function atLeast(lo: bigint): string {
  const digits = lo.toString().length;
  const longer = `[1-9] [0-9]{${digits},${Math.max(digits, UNBOUNDED_TAIL)}}`;
  return `(${between(lo, 10n ** BigInt(digits) - 1n)} | ${longer})`;
}

/** Non-negative integers in [lo, hi], split by digit count. */
function between(lo: bigint, hi: bigint): string {
  const parts: string[] = [];
  for (let digits = lo.toString().length; digits <= hi.toString().length; digits++) {
    const floor = digits === 1 ? 0n : 10n ** BigInt(digits - 1);
    const ceil = 10n ** BigInt(digits) - 1n;
    const a = lo > floor ? lo : floor;
    const b = hi < ceil ? hi : ceil;
    if (a <= b) parts.push(sameWidth(a.toString(), b.toString()));
  }
  return parts.length === 1 ? parts[0] : `(${parts.join(' | ')})`;
}

/** Digit strings of one width from a to b (a <= b), the classic range-to-pattern split. */
function sameWidth(a: string, b: string): string {
  if (a === b) return `"${a}"`;
  if (a.length === 1) return `[${a}-${b}]`;
  if (/^0+$/.test(a) && /^9+$/.test(b)) return `[0-9]{${a.length}}`;
  const [fa, fb] = [Number(a[0]), Number(b[0])];
  const restA = a.slice(1);
  const restB = b.slice(1);
  if (fa === fb) return `"${fa}" ${sameWidth(restA, restB)}`;
  const width = a.length - 1;
  const nines = '9'.repeat(width);
  const zeros = '0'.repeat(width);
  const parts = [`"${fa}" ${sameWidth(restA, nines)}`];
  if (fb - fa > 1) parts.push(`[${fa + 1}-${fb - 1}] [0-9]{${width}}`);
  parts.push(`"${fb}" ${sameWidth(zeros, restB)}`);
  return `(${parts.join(' | ')})`;
}
