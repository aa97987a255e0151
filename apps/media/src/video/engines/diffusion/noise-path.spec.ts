import { seededNormals } from '../../../engines/diffusion/seeded-noise';
import { NoisePath, slerp } from './noise-path';

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const distance = (a: Float32Array, b: Float32Array) => Math.sqrt(a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0));

describe('slerp', () => {
  const a = seededNormals(1, 3072);
  const b = seededNormals(2, 3072);

  it('starts at a, ends at b, and keeps the noise at noise scale in between (a linear blend shrinks it)', () => {
    expect(distance(slerp(a, b, 0), a)).toBeLessThan(1e-3);
    expect(distance(slerp(a, b, 1), b)).toBeLessThan(1e-3);
    const mid = slerp(a, b, 0.5);
    expect(norm(mid) / Math.sqrt(norm(a) * norm(b))).toBeGreaterThan(0.98);
    const linear = a.map((x, i) => (x + b[i]) / 2);
    expect(norm(linear) / norm(a)).toBeLessThan(0.8);
  });
});

describe('NoisePath', () => {
  it('walks smoothly: nearby times give nearby noise, far times unrelated noise, and a seed gives the same walk', () => {
    const walk = new NoisePath(5, 3072, 1);
    const step = distance(walk.at(1.0), walk.at(1.05));
    const far = distance(walk.at(0), walk.at(3));
    expect(step).toBeLessThan(far / 10);
    expect(distance(new NoisePath(5, 3072, 1).at(2.3), walk.at(2.3))).toBe(0);
    expect(distance(new NoisePath(6, 3072, 1).at(2.3), walk.at(2.3))).toBeGreaterThan(10);
  });
});
