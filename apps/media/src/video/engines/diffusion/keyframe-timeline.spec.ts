import { blendFrame, keyframeTimes } from './keyframe-timeline';

describe('keyframeTimes', () => {
  it('places keyframes every 1/kps seconds, the last at the end of the clip, at least two', () => {
    expect(keyframeTimes(1, 4)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(keyframeTimes(1.1, 4)).toEqual([0, 0.25, 0.5, 0.75, 1, 1.1]);
    expect(keyframeTimes(0.1, 4)).toEqual([0, 0.1]);
  });
});

describe('blendFrame', () => {
  const keys = [Uint8Array.of(0), Uint8Array.of(100), Uint8Array.of(200)];
  const times = [0, 0.5, 1];
  const frame = (i: number, fps: number) => blendFrame(keys, times, i, fps, new Uint8Array(1))[0];

  it('shows each keyframe at its time and linear blends between', () => {
    expect([0, 1, 2, 3, 4].map((i) => frame(i, 4))).toEqual([0, 50, 100, 150, 200]);
    expect(frame(9, 4)).toBe(200);
  });
});
