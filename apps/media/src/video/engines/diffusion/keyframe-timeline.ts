/**
 * Where the keyframes sit in a clip and how the frames between them are made: keyframe k is at
 * `k / keyframesPerSecond` seconds (the last one at the clip's end), and every frame is the
 * linear blend of the two keyframes around its time.
 */
export function keyframeTimes(durationSeconds: number, keyframesPerSecond: number): number[] {
  const count = Math.max(2, Math.ceil(durationSeconds * keyframesPerSecond) + 1);
  return Array.from({ length: count }, (_, k) => Math.min(durationSeconds, k / keyframesPerSecond));
}

/** Frame `index` of a clip at `fps`, blended from `keyframes` placed at `times` (ascending). */
export function blendFrame(keyframes: ReadonlyArray<Uint8Array>, times: ReadonlyArray<number>, index: number, fps: number, out: Uint8Array): Uint8Array {
  const t = index / fps;
  let k = 0;
  while (k + 2 < times.length && times[k + 1] <= t) k++;
  const span = times[k + 1] - times[k];
  const a = span > 0 ? Math.min(1, Math.max(0, (t - times[k]) / span)) : 0;
  const from = keyframes[k];
  const to = keyframes[k + 1];
  for (let i = 0; i < out.length; i++) out[i] = Math.round(from[i] + a * (to[i] - from[i]));
  return out;
}
