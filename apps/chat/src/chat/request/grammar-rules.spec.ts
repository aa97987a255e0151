import { FORMAT_RULES, integerRangeRule, numberRangeRule, ruleNode, ruleOf } from './grammar-rules';

/** The GBNF subset these rules use (literals, classes, groups, |, ?, {m,n}) as a JS regex. */
function asRegex(rule: string): RegExp {
  const source = rule.replace(/"((?:[^"\\]|\\.)*)"|\[[^\]]*\]|\s+/g, (token, literal: string | undefined) => {
    if (literal !== undefined) return literal.replace(/\\(.)/g, '$1').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return token.trim() === '' ? '' : token;
  });
  return new RegExp(`^(?:${source})$`);
}

const matches = (rule: string, text: string): boolean => asRegex(rule).test(text);

describe('grammar rules for what node-llama-cpp cannot say', () => {
  it.each([
    [0n, 120n],
    [-40n, -3n],
    [-15n, 250n],
    [7n, undefined],
    [undefined, 42n],
    [undefined, -12n],
    [-5n, undefined],
    [100n, 100n],
  ])('integers in [%p, %p]: exactly those, without leading zeros', (min, max) => {
    const rule = integerRangeRule(min, max)!;
    for (let v = -400; v <= 400; v++) {
      const inside = (min === undefined || BigInt(v) >= min) && (max === undefined || BigInt(v) <= max);
      expect([v, matches(rule, String(v))]).toEqual([v, inside]);
    }
    expect(matches(rule, '007')).toBe(false);
  });

  it('leaves unbounded and safe-integer-wide ranges to the plain integer grammar', () => {
    expect(integerRangeRule(undefined, undefined)).toBeUndefined();
    expect(integerRangeRule(-9007199254740991n, 9007199254740991n)).toBeUndefined();
  });

  it('numbers in [0, 1]: integers and decimals that stay in range', () => {
    const rule = numberRangeRule(0n, 1n)!;
    for (const ok of ['0', '1', '0.5', '0.123456']) expect([ok, matches(rule, ok)]).toEqual([ok, true]);
    for (const bad of ['2', '1.5', '-0.5', '-1', '01']) expect([bad, matches(rule, bad)]).toEqual([bad, false]);
  });

  it.each([
    ['email', ['"ada@example.com"', '"a.b+c@mail.example.org"'], ['"ada@"', '"a..b@example.com"', '".a@example.com"', '"a@b"']],
    ['uuid', ['"123e4567-e89b-42d3-a456-426614174000"'], ['"123e4567e89b42d3a456426614174000"', '"123E4567-E89B-42D3-A456-426614174000"']],
    ['date', ['"2024-02-28"', '"1999-12-31"'], ['"2024-02-30"', '"2024-13-01"', '"2024-04-31"']],
    ['date-time', ['"2024-05-01T13:45:00Z"'], ['"2024-05-01T24:00:00Z"', '"2024-05-01 13:45:00"', '"2024-05-01T13:45:00"']],
  ])('format %s as a quoted JSON string', (format, good, bad) => {
    for (const text of good) expect([text, matches(FORMAT_RULES[format], text)]).toEqual([text, true]);
    for (const text of bad) expect([text, matches(FORMAT_RULES[format], text)]).toEqual([text, false]);
  });

  it('a rule travels as a placeholder const the worker can read back', () => {
    const node = ruleNode('[0-9] | "10"');
    expect(node.const).toMatch(/^svcgbnf-[0-9a-f]+$/);
    expect(ruleOf(node.const)).toBe('[0-9] | "10"');
  });
});
