/** Deterministic DDIM (eta = 0) over an epsilon-predicting model with classifier-free guidance. */

/** Timesteps from `strength * (T - 1)` down towards 0; strength < 1 starts part-way (image-to-image). */
export function ddimTimesteps(steps: number, trainSteps: number, strength = 1): number[] {
  const top = (trainSteps - 1) * strength;
  if (steps <= 1) return [Math.round(top)];
  return Array.from({ length: steps }, (_, i) => roundHalfEven(top - (i * top) / steps));
}

/** Python's round() (half to even), so both implementations pick the same timesteps. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * One DDIM step in place on `x`. `epsCond`/`epsUncond` are the model's predictions with and
 * without the prompt; `abar`/`abarPrev` the cumulative alphas of this and the next timestep.
 */
export function ddimStep(x: Float32Array, epsCond: Float32Array, epsUncond: Float32Array, guidance: number, abar: number, abarPrev: number): void {
  const sa = Math.sqrt(abar);
  const s1a = Math.sqrt(1 - abar);
  const sp = Math.sqrt(abarPrev);
  const s1p = Math.sqrt(1 - abarPrev);
  for (let i = 0; i < x.length; i++) {
    const eps = epsUncond[i] + guidance * (epsCond[i] - epsUncond[i]);
    const x0 = Math.min(1, Math.max(-1, (x[i] - s1a * eps) / sa));
    const e = (x[i] - sa * x0) / s1a;
    x[i] = sp * x0 + s1p * e;
  }
}

/** Noises a clean image `x0` (in [-1, 1]) to timestep level `abar` with `noise`, in place on `noise`. */
export function noiseTo(x0: Float32Array, noise: Float32Array, abar: number): Float32Array {
  const sa = Math.sqrt(abar);
  const s1a = Math.sqrt(1 - abar);
  for (let i = 0; i < noise.length; i++) noise[i] = sa * x0[i] + s1a * noise[i];
  return noise;
}
