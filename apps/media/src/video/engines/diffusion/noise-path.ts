import { seededNormals } from '../../../engines/diffusion/seeded-noise';

/**
 * Spherical interpolation between two Gaussian noise vectors. Unlike a linear blend it keeps the
 * norm of the noise, so every point on the path is noise the model was trained to denoise.
 */
export function slerp(a: Float32Array, b: Float32Array, t: number): Float32Array {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  const cos = Math.min(1, Math.max(-1, dot / Math.sqrt(na * nb)));
  const theta = Math.acos(cos);
  const out = new Float32Array(a.length);
  if (theta < 1e-4) {
    for (let i = 0; i < a.length; i++) out[i] = a[i] + t * (b[i] - a[i]);
    return out;
  }
  const s = Math.sin(theta);
  const wa = Math.sin((1 - t) * theta) / s;
  const wb = Math.sin(t * theta) / s;
  for (let i = 0; i < a.length; i++) out[i] = wa * a[i] + wb * b[i];
  return out;
}

/**
 * A smooth walk through noise space: anchor j is the seeded noise of `seed` mixed with j, and the
 * walk moves `anchorsPerSecond` anchors per second of video, slerping between neighbours. The same
 * seed gives the same walk (and so the same video).
 */
export class NoisePath {
  private readonly anchors = new Map<number, Float32Array>();

  constructor(
    private readonly seed: number,
    private readonly size: number,
    private readonly anchorsPerSecond: number,
  ) {}

  at(seconds: number): Float32Array {
    const position = Math.max(0, seconds) * this.anchorsPerSecond;
    const j = Math.floor(position);
    return slerp(this.anchor(j), this.anchor(j + 1), position - j);
  }

  private anchor(j: number): Float32Array {
    let noise = this.anchors.get(j);
    if (!noise) {
      noise = seededNormals((this.seed + Math.imul(j, 0x9e3779b1)) >>> 0, this.size);
      this.anchors.set(j, noise);
    }
    return noise;
  }
}
