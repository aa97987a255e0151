/**
 * GBNF rules for what node-llama-cpp's JSON-schema grammar cannot say itself: number ranges here,
 * string formats with their lengths in format-rules.ts. A rule travels inside the schema as a placeholder const
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

/** A bound of a number range: its value and whether it is itself excluded. */
export interface NumberBound {
  value: number;
  exclusive: boolean;
}

/** Most fraction digits a range without an integer in it is written with. */
const MAX_FRACTION_DIGITS = 6;
/** Fewest values such a range should offer the model, when that many fraction digits allow it. */
const ENOUGH_VALUES = 10;

/**
 * A GBNF expression for numbers in a range with no integer in it (`.positive().lt(1)`,
 * `.min(0.2).max(0.8)`): one integer part and fraction digits of one width, the fewest digits
 * (up to 6) that give 10 values, else the most values 6 digits give. Undefined when even 6 digits
 * give none (a range narrower than 0.000001).
 */
export function fractionRangeRule(lo: NumberBound, hi: NumberBound): string | undefined {
  if (hi.value < 0 || (hi.value === 0 && hi.exclusive)) {
    const mirrored = fractionRangeRule({ value: -hi.value, exclusive: hi.exclusive }, { value: -lo.value, exclusive: lo.exclusive });
    return mirrored && `"-" ${mirrored}`;
  }
  const whole = Math.floor(lo.value);
  let best: { digits: number; from: number; to: number } | undefined;
  for (let digits = 1; digits <= MAX_FRACTION_DIGITS; digits++) {
    const scale = 10 ** digits;
    const above = (k: number) => (lo.exclusive ? k / scale > lo.value : k / scale >= lo.value);
    const below = (k: number) => (hi.exclusive ? k / scale < hi.value : k / scale <= hi.value);
    // ceil/floor of a scaled float can be one off; step to the exact edge by the same division JSON.parse gives.
    let from = Math.ceil(lo.value * scale);
    while (above(from - 1)) from--;
    while (!above(from)) from++;
    let to = Math.floor(hi.value * scale);
    while (below(to + 1)) to++;
    while (!below(to)) to--;
    from = Math.max(from, whole * scale + 1);
    to = Math.min(to, (whole + 1) * scale - 1);
    if (to >= from && (!best || to - from > best.to - best.from)) best = { digits, from, to };
    if (best && best.to - best.from + 1 >= ENOUGH_VALUES) break;
  }
  if (!best) return undefined;
  const pad = (k: number) => String(k - whole * 10 ** best!.digits).padStart(best!.digits, '0');
  return `"${whole}" "." ${sameWidth(pad(best.from), pad(best.to))}`;
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
export function sameWidth(a: string, b: string): string {
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
