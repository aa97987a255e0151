import { rtf, summarize } from './rtf';

describe('real-time factor', () => {
  it('is processing time over audio time', () => {
    expect(rtf(500, 2)).toBeCloseTo(0.25);
    expect(() => rtf(1, 0)).toThrow(RangeError);
  });

  it('summarizes runs by total time over total audio', () => {
    expect(
      summarize([
        { ms: 1000, audioSeconds: 4 },
        { ms: 3000, audioSeconds: 4 },
      ]),
    ).toEqual({ runs: 2, audioSeconds: 8, processingMs: 4000, rtf: 0.5 });
  });
});
