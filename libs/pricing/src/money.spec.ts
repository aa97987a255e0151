import { amountOf, divCeil, formatAmount, MoneyFormatError, parseAmount, toNumber } from './money';

describe('money', () => {
  it('parses decimal text exactly, to the nano-unit', () => {
    expect(parseAmount('100')).toBe(100_000_000_000n);
    expect(parseAmount('0.000000001')).toBe(1n);
    expect(parseAmount('12.5')).toBe(12_500_000_000n);
    expect(parseAmount('-3.25')).toBe(-3_250_000_000n);
  });

  it('refuses what it cannot represent instead of rounding', () => {
    expect(() => parseAmount('0.0000000001')).toThrow(MoneyFormatError);
    expect(() => parseAmount('1e3')).toThrow(/not a decimal amount/);
    expect(() => parseAmount('')).toThrow(MoneyFormatError);
  });

  it('converts catalog floats without binary noise', () => {
    expect(amountOf(0.01)).toBe(10_000_000n);
    expect(amountOf(0.1 + 0.2)).toBe(300_000_000n);
    expect(amountOf(1e-7)).toBe(100n);
    expect(amountOf(2.8)).toBe(2_800_000_000n);
  });

  it('formats with every significant decimal and at least two', () => {
    expect(formatAmount(100_000_000_000n)).toBe('100.00');
    expect(formatAmount(99_999_999_990n)).toBe('99.99999999');
    expect(formatAmount(1n)).toBe('0.000000001');
    expect(formatAmount(-1_500_000_000n)).toBe('-1.50');
    expect(formatAmount(0n, 0)).toBe('0');
    expect(toNumber(420_000n)).toBe(0.00042);
  });

  it('rounds charges up, never down to free', () => {
    expect(divCeil(1n, 1_000_000n)).toBe(1n);
    expect(divCeil(2_000_000n, 1_000_000n)).toBe(2n);
    expect(divCeil(0n, 7n)).toBe(0n);
  });
});
