import { toFloat16Bits } from './f16';
import { Prng } from './prng';

describe('toFloat16Bits', () => {
  it.each([
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [0.5, 0x3800],
    [65504, 0x7bff],
    [1e6, 0x7c00],
    [Infinity, 0x7c00],
    [2 ** -24, 0x0001],
    [2 ** -14, 0x0400],
    [1e-9, 0x0000],
    [0.1, 0x2e66],
  ])('%p -> %p', (value, bits) => {
    expect(toFloat16Bits(value)).toBe(bits);
  });

  it('maps NaN to a NaN', () => {
    const bits = toFloat16Bits(NaN);
    expect(bits & 0x7c00).toBe(0x7c00);
    expect(bits & 0x3ff).not.toBe(0);
  });
});

describe('Prng', () => {
  it('repeats for a seed and differs across seeds', () => {
    const a = new Prng(1);
    const b = new Prng(1);
    const c = new Prng(2);
    const seqA = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(seqA);
    expect(Array.from({ length: 5 }, () => c.nextUint32())).not.toEqual(seqA);
  });

  it('draws roughly standard normal values', () => {
    const rng = new Prng(3);
    const xs = Array.from({ length: 20000 }, () => rng.normal());
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
    expect(Math.abs(mean)).toBeLessThan(0.05);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
  });
});
