/**
 * Seeded standard-normal noise: Mulberry32 uniforms through Box-Muller (one normal per pair).
 * models/zoo/image/sampler.py implements the same sequence, so a seed gives the same image in
 * the Python evaluation and in this engine.
 */
export function seededNormals(seed: number, count: number): Float32Array {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const u1 = 1 - next();
    const u2 = next();
    out[i] = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }
  return out;
}
