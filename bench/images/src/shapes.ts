/**
 * Procedural test images for background removal: 1 to 3 shapes (circle, ellipse, rectangle,
 * triangle) in random colours on a background (solid, noisy, linear gradient, or two-tone), with
 * the exact foreground mask (a pixel is foreground when its centre lies inside a shape). Shape
 * colours differ from the background by at least MIN_CONTRAST, so a mask exists in principle.
 */
export const BACKGROUNDS = ['solid', 'noisy', 'gradient', 'two-tone'] as const;
export type BackgroundKind = (typeof BACKGROUNDS)[number];
const MIN_CONTRAST = 80;

export interface ShapeImage {
  width: number;
  height: number;
  background: BackgroundKind;
  /** RGB, 3 bytes per pixel. */
  rgb: Uint8Array;
  /** 1 foreground, 0 background. */
  mask: Uint8Array;
}

/** mulberry32: a small seeded PRNG, so every image is reproducible from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rgb = [number, number, number];
const dist = (a: Rgb, b: Rgb) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

export function shapeImage(seed: number): ShapeImage {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const colour = (): Rgb => [Math.floor(r() * 256), Math.floor(r() * 256), Math.floor(r() * 256)];
  const width = 256 + Math.floor(r() * 129);
  const height = 256 + Math.floor(r() * 129);
  const background = BACKGROUNDS[seed % BACKGROUNDS.length];
  const a = colour();
  let b = colour();
  if (background === 'gradient') b = a.map((v) => Math.max(0, Math.min(255, v + (r() - 0.5) * 120))) as Rgb;
  if (background === 'two-tone') while (dist(a, b) < 60) b = colour();
  const bgAt = (x: number, y: number): Rgb => {
    if (background === 'gradient') {
      const t = (x / width + y / height) / 2;
      return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
    }
    if (background === 'two-tone') return x < width / 2 ? a : b;
    return a;
  };
  const shapes = Array.from({ length: 1 + Math.floor(r() * 3) }, () => {
    let fill = colour();
    while (dist(fill, a) < MIN_CONTRAST || dist(fill, b) < MIN_CONTRAST) fill = colour();
    const cx = width * (0.25 + r() * 0.5);
    const cy = height * (0.25 + r() * 0.5);
    const rx = Math.min(width, height) * (0.08 + r() * 0.17);
    const ry = pick(['circle', 'other']) === 'circle' ? rx : Math.min(width, height) * (0.08 + r() * 0.17);
    const kind = pick(['ellipse', 'rect', 'triangle'] as const);
    const inside = (x: number, y: number): boolean => {
      const u = (x - cx) / rx;
      const v = (y - cy) / ry;
      if (kind === 'ellipse') return u * u + v * v <= 1;
      if (kind === 'rect') return Math.abs(u) <= 1 && Math.abs(v) <= 1;
      return v <= 1 && v >= -1 && Math.abs(u) <= (v + 1) / 2;
    };
    return { fill, inside };
  });
  const noise = background === 'noisy' ? 24 : 6;
  const rgb = new Uint8Array(width * height * 3);
  const mask = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const hit = shapes.findLast((s) => s.inside(x + 0.5, y + 0.5));
      const c = hit ? hit.fill : bgAt(x, y);
      mask[i] = hit ? 1 : 0;
      for (let k = 0; k < 3; k++) rgb[i * 3 + k] = Math.max(0, Math.min(255, Math.round(c[k] + (r() - 0.5) * noise)));
    }
  return { width, height, background, rgb, mask };
}

/** Intersection over union of a predicted mask (alpha >= 128 is foreground) and the exact one. */
export function maskIoU(alpha: Uint8Array, mask: Uint8Array): number {
  let inter = 0;
  let union = 0;
  for (let i = 0; i < mask.length; i++) {
    const p = alpha[i] >= 128;
    const t = mask[i] === 1;
    if (p && t) inter++;
    if (p || t) union++;
  }
  return union === 0 ? 1 : inter / union;
}
