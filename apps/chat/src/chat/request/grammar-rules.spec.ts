import { asRegex, sampler } from '../../../test/gbnf-sampler';
import { fractionRangeRule, integerRangeRule, numberRangeRule, ruleNode, ruleOf } from './grammar-rules';

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
    [{ value: 0, exclusive: true }, { value: 1, exclusive: true }, ['0.01', '0.50', '0.99'], ['0', '1', '0.00', '1.00', '-0.50', '0.5']],
    [{ value: 0.2, exclusive: false }, { value: 0.8, exclusive: false }, ['0.20', '0.80', '0.55'], ['0.19', '0.81', '0.2', '1.00']],
    [{ value: 1.25, exclusive: true }, { value: 1.75, exclusive: false }, ['1.26', '1.75'], ['1.25', '1.76', '0.50']],
    [{ value: -0.8, exclusive: false }, { value: -0.2, exclusive: false }, ['-0.20', '-0.80', '-0.50'], ['0.50', '-0.19', '-0.81']],
    [{ value: -1, exclusive: true }, { value: 0, exclusive: true }, ['-0.01', '-0.99'], ['-1.00', '0.00', '-0.00']],
  ])('numbers in %p..%p with no integer inside: a fixed-width fraction that stays inside', (lo, hi, good, bad) => {
    const rule = fractionRangeRule(lo, hi)!;
    for (const text of good) expect([text, matches(rule, text)]).toEqual([text, true]);
    for (const text of bad) expect([text, matches(rule, text)]).toEqual([text, false]);
    const draw = sampler(rule, 7);
    for (let i = 0; i < 300; i++) {
      const value = Number(draw());
      expect(lo.exclusive ? value > lo.value : value >= lo.value).toBe(true);
      expect(hi.exclusive ? value < hi.value : value <= hi.value).toBe(true);
    }
  });

  it('a range narrower than 6 fraction digits can write has no rule (checked after generation)', () => {
    expect(fractionRangeRule({ value: 0.1, exclusive: true }, { value: 0.1000001, exclusive: true })).toBeUndefined();
  });

  it('a rule travels as a placeholder const the worker can read back', () => {
    const node = ruleNode('[0-9] | "10"');
    expect(node.const).toMatch(/^svcgbnf-[0-9a-f]+$/);
    expect(ruleOf(node.const)).toBe('[0-9] | "10"');
  });
});
