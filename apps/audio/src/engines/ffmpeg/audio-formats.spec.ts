import { atempoChain } from './audio-formats';

const product = (chain: string | null) =>
  (chain ?? '')
    .split(',')
    .filter(Boolean)
    .reduce((p, s) => p * Number(s.split('=')[1]), 1);

describe('atempoChain', () => {
  it('is empty at normal speed', () => {
    expect(atempoChain(1)).toBeNull();
  });

  it.each([0.25, 0.3, 0.5, 0.75, 1.5, 2, 3, 4])('chains stages within 0.5-2 whose product is %p', (speed) => {
    const chain = atempoChain(speed) as string;
    for (const stage of chain.split(',')) {
      const value = Number(stage.split('=')[1]);
      expect(value).toBeGreaterThanOrEqual(0.5);
      expect(value).toBeLessThanOrEqual(2);
    }
    expect(product(chain)).toBeCloseTo(speed, 5);
  });
});
