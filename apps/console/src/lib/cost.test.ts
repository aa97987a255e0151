import { costOf } from './cost';
import { formatNano, toNano } from './money';

describe('costOf', () => {
  it('prices tokens as billing does: 10 nano-USD per input token and 20 per output token at 0.01/0.02 USD per million', () => {
    const pricing = { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } };
    expect(costOf(pricing, { kind: 'text', promptTokens: 7, completionTokens: 8 })).toBe(230n);
    expect(formatNano(230n)).toBe('0.00000023');
  });

  it('rounds each line up to the nano-unit, not the total', () => {
    // 1 token at 0.0015 USD/M is 1.5 nano -> 2; two lines of 1.5 are 4, not 3.
    const pricing = { input: { usd: 0.0015, diem: 0 }, output: { usd: 0.0015, diem: 0 } };
    expect(costOf(pricing, { kind: 'text', promptTokens: 1, completionTokens: 1 })).toBe(4n);
  });

  it('prices images, speech and transcription by their units, and says null when the model has no such price', () => {
    expect(costOf({ generation: { usd: 0.001, diem: 0.001 } }, { kind: 'image', images: 1 })).toBe(1_000_000n);
    expect(costOf({ input: { usd: 1, diem: 1 } }, { kind: 'speech', characters: 11 })).toBe(11_000n);
    expect(costOf({ per_thousand_characters: { usd: 0.015, diem: 0 } }, { kind: 'speech', characters: 1000 })).toBe(15_000_000n);
    expect(costOf({ per_audio_second: { usd: 0.0001, diem: 0 } }, { kind: 'transcription', audioMs: 2500 })).toBe(250_000n);
    expect(costOf({ input: { usd: 1, diem: 1 } }, { kind: 'image', images: 1 })).toBeNull();
  });

  it('converts decimal prices exactly', () => {
    expect(toNano(0.1 + 0.2)).toBe(300_000_000n);
    expect(formatNano(12_500_000_000n)).toBe('12.50');
    expect(formatNano(-5n)).toBe('-0.000000005');
  });
});
