/** Small RGB resamplers for the native 32x32 model: bilinear to upscale, box average to downscale. */

export interface RgbImage {
  /** Row-major pixels, `channels` bytes each (3 = RGB, 4 = RGBA; alpha is composited on white). */
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** Scales to cover `width` x `height` (keeping the aspect ratio) and crops the centre, bilinear. */
export function upscaleCover(src: Uint8Array, sw: number, sh: number, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height * 3);
  const scale = Math.max(width / sw, height / sh);
  const ox = (sw * scale - width) / 2;
  const oy = (sh * scale - height) / 2;
  for (let y = 0; y < height; y++) {
    const fy = Math.min(sh - 1, Math.max(0, (y + oy + 0.5) / scale - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(sh - 1, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(sw - 1, Math.max(0, (x + ox + 0.5) / scale - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(sw - 1, x0 + 1);
      const wx = fx - x0;
      for (let c = 0; c < 3; c++) {
        const top = src[(y0 * sw + x0) * 3 + c] * (1 - wx) + src[(y0 * sw + x1) * 3 + c] * wx;
        const bottom = src[(y1 * sw + x0) * 3 + c] * (1 - wx) + src[(y1 * sw + x1) * 3 + c] * wx;
        out[(y * width + x) * 3 + c] = Math.round(top * (1 - wy) + bottom * wy);
      }
    }
  }
  return out;
}

/** Centre-crops to a square and box-averages down to `size` x `size` RGB (for image-to-image input). */
export function toSquareRgb(img: RgbImage, size: number): Uint8Array {
  const side = Math.min(img.width, img.height);
  const x0 = Math.floor((img.width - side) / 2);
  const y0 = Math.floor((img.height - side) / 2);
  const out = new Uint8Array(size * size * 3);
  for (let y = 0; y < size; y++) {
    const ya = y0 + Math.floor((y * side) / size);
    const yb = Math.max(ya + 1, y0 + Math.floor(((y + 1) * side) / size));
    for (let x = 0; x < size; x++) {
      const xa = x0 + Math.floor((x * side) / size);
      const xb = Math.max(xa + 1, x0 + Math.floor(((x + 1) * side) / size));
      const sum = [0, 0, 0];
      let n = 0;
      for (let yy = ya; yy < yb; yy++) {
        for (let xx = xa; xx < xb; xx++) {
          const p = (yy * img.width + xx) * img.channels;
          const alpha = img.channels === 4 ? img.data[p + 3] / 255 : 1;
          for (let c = 0; c < 3; c++) sum[c] += img.data[p + c] * alpha + 255 * (1 - alpha);
          n++;
        }
      }
      for (let c = 0; c < 3; c++) out[(y * size + x) * 3 + c] = Math.round(sum[c] / n);
    }
  }
  return out;
}
