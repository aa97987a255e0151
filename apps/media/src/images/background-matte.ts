import sharp from 'sharp';

/**
 * Classical background removal (no learned model), for images of one subject on a fairly plain
 * background: the background's colours are estimated from the border, every pixel is scored by
 * its distance to the nearest of them, the background is the set of close-enough pixels connected
 * to the border (so parts of the subject that share the background's colour stay, when enclosed),
 * and the mask is cleaned (small specks removed, holes filled, edges feathered). Busy or
 * subject-coloured backgrounds defeat it; docs/images.md gives its measured accuracy.
 */

/** Side of the working copy the mask is computed on; the mask is scaled back up (soft edges). */
const WORK_SIDE = 768;
/** Border ring (fraction of the shorter side, at least 2 px) sampled for background colours. */
const RING = 0.03;
/** Most background colour clusters. */
const CLUSTERS = 4;
/** Minimum colour distance (RGB, 0..441) counted as "not background", whatever the border's spread. */
const MIN_THRESHOLD = 32;
/** Least share of the border a background colour covers. */
const MIN_SHARE = 0.1;

export interface MatteTuning {
  minThreshold: number;
}

/** A binary foreground mask (255 subject, 0 background) of an RGB image, one byte per pixel. */
export function foregroundMask(rgb: Uint8Array, width: number, height: number, tuning: MatteTuning = { minThreshold: MIN_THRESHOLD }): Uint8Array {
  const ring = borderPixels(width, height);
  const centres = clusterColours(rgb, ring);
  const dist = new Float32Array(width * height);
  for (let i = 0; i < dist.length; i++) dist[i] = nearest(rgb, i, centres);
  // The border's own spread (noise, gradients, vignettes) sets the threshold: its 90th percentile
  // (the subject may touch the border), times 2.5.
  const spread = ring.map((i) => dist[i]).sort((a, b) => a - b)[Math.floor(ring.length * 0.9)] ?? 0;
  const threshold = Math.max(tuning.minThreshold, spread * 2.5);
  const background = floodFromBorder(dist, width, height, ring, threshold);
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) mask[i] = background[i] ? 0 : 255;
  return mask;
}

/** The image as a PNG with the background transparent (the input's own alpha is kept where lower). */
export async function removeBackground(bytes: Buffer): Promise<{ png: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(bytes).rotate().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const scale = Math.min(1, WORK_SIDE / Math.max(width, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const small = await sharp(data, { raw: { width, height, channels: 4 } })
    .flatten({ background: '#ffffff' })
    .resize(w, h, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer();
  const raw = foregroundMask(new Uint8Array(small.buffer, small.byteOffset, small.byteLength), w, h);
  const alpha = await cleanMask(raw, w, h, width, height);
  const out = Buffer.alloc(width * height * 4);
  for (let i = 0, p = 0; i < alpha.length; i++, p += 4) {
    out[p] = data[p];
    out[p + 1] = data[p + 1];
    out[p + 2] = data[p + 2];
    out[p + 3] = Math.min(alpha[i], data[p + 3]);
  }
  const png = await sharp(out, { raw: { width, height, channels: 4 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
  return { png, width, height };
}

/**
 * Morphology with libvips: a median filter drops specks and fills pinholes (an opening and a
 * closing at once for a binary mask), then the mask is scaled to the output size and feathered
 * with a small blur, so edges get partial alpha instead of jaggies.
 */
async function cleanMask(mask: Uint8Array, w: number, h: number, width: number, height: number): Promise<Buffer> {
  const side = Math.max(3, Math.round(Math.min(w, h) / 150) * 2 + 1);
  return sharp(Buffer.from(mask), { raw: { width: w, height: h, channels: 1 } })
    .median(side)
    .resize(width, height, { fit: 'fill', kernel: 'cubic' })
    .blur(Math.max(0.5, Math.min(width, height) / 1000))
    .extractChannel(0)
    .raw()
    .toBuffer();
}

function borderPixels(width: number, height: number): number[] {
  const band = Math.max(2, Math.round(Math.min(width, height) * RING));
  const out: number[] = [];
  for (let y = 0; y < height; y++) {
    const edgeRow = y < band || y >= height - band;
    for (let x = 0; x < width; x++) if (edgeRow || x < band || x >= width - band) out.push(y * width + x);
  }
  return out;
}

/** Up to CLUSTERS colour centres of the border pixels (k-means, seeded by farthest-point picks). */
function clusterColours(rgb: Uint8Array, ring: number[]): Array<[number, number, number]> {
  const stride = Math.max(1, Math.floor(ring.length / 4000));
  const sample = ring.filter((_, k) => k % stride === 0);
  const colour = (i: number): [number, number, number] => [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2]];
  const centres: Array<[number, number, number]> = [mean(sample.map(colour))];
  while (centres.length < CLUSTERS) {
    let far = -1;
    let farDist = 0;
    for (const i of sample) {
      const d = nearest(rgb, i, centres);
      if (d > farDist) [far, farDist] = [i, d];
    }
    // Only a distinct colour (not noise) earns its own cluster.
    if (far < 0 || farDist < MIN_THRESHOLD) break;
    centres.push(colour(far));
  }
  let groups: Array<Array<[number, number, number]>> = [];
  for (let round = 0; round < 5; round++) {
    groups = centres.map(() => []);
    for (const i of sample) groups[nearestIndex(rgb, i, centres)].push(colour(i));
    groups.forEach((g, k) => g.length && (centres[k] = mean(g)));
  }
  // A colour on under MIN_SHARE of the border is the subject touching it, not background.
  const kept = centres.filter((_, k) => groups[k].length >= sample.length * MIN_SHARE);
  return kept.length ? kept : [centres[0]];
}

function mean(colours: Array<[number, number, number]>): [number, number, number] {
  const s = [0, 0, 0];
  for (const c of colours) for (let k = 0; k < 3; k++) s[k] += c[k];
  return [s[0] / colours.length, s[1] / colours.length, s[2] / colours.length];
}

function nearestIndex(rgb: Uint8Array, i: number, centres: Array<[number, number, number]>): number {
  let best = 0;
  let bestD = Infinity;
  centres.forEach((c, k) => {
    const d = (rgb[i * 3] - c[0]) ** 2 + (rgb[i * 3 + 1] - c[1]) ** 2 + (rgb[i * 3 + 2] - c[2]) ** 2;
    if (d < bestD) [best, bestD] = [k, d];
  });
  return best;
}

function nearest(rgb: Uint8Array, i: number, centres: Array<[number, number, number]>): number {
  const c = centres[nearestIndex(rgb, i, centres)];
  return Math.sqrt((rgb[i * 3] - c[0]) ** 2 + (rgb[i * 3 + 1] - c[1]) ** 2 + (rgb[i * 3 + 2] - c[2]) ** 2);
}

/** Pixels under `threshold` reachable from the border through such pixels (4-connected). */
function floodFromBorder(dist: Float32Array, width: number, height: number, ring: number[], threshold: number): Uint8Array {
  const seen = new Uint8Array(width * height);
  const stack = new Int32Array(width * height);
  let top = 0;
  for (const i of ring)
    if (dist[i] < threshold && !seen[i]) {
      seen[i] = 1;
      stack[top++] = i;
    }
  while (top > 0) {
    const i = stack[--top];
    const x = i % width;
    const push = (j: number) => {
      if (!seen[j] && dist[j] < threshold) {
        seen[j] = 1;
        stack[top++] = j;
      }
    };
    if (x > 0) push(i - 1);
    if (x < width - 1) push(i + 1);
    if (i >= width) push(i - width);
    if (i < width * (height - 1)) push(i + width);
  }
  return seen;
}
