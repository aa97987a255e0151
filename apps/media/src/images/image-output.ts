import sharp, { Sharp } from 'sharp';
import { ImageFormat } from '@svc/contracts';

export interface FinishOptions {
  width: number;
  height: number;
  format: ImageFormat;
  /** EXIF ImageDescription / Software / UserComment text, when the caller asked for metadata. */
  exif?: { description: string; software: string; comment: string };
  watermark: boolean;
  blur: boolean;
}

export const WATERMARK_TEXT = 'svc';

/**
 * Turns engine pixels into the delivered file: resize (cover + centre crop, Lanczos) from the
 * native resolution to the requested size, blur for safe mode, a visible watermark, the format,
 * and EXIF metadata. Deterministic: the same pixels and options give the same bytes.
 */
export async function finishImage(rgb: Uint8Array, srcWidth: number, srcHeight: number, options: FinishOptions): Promise<Buffer> {
  const { width, height } = options;
  let image = sharp(Buffer.from(rgb.buffer, rgb.byteOffset, rgb.byteLength), { raw: { width: srcWidth, height: srcHeight, channels: 3 } });
  if (srcWidth !== width || srcHeight !== height) image = image.resize(width, height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' });
  if (options.blur) image = image.blur(blurSigma(width, height));
  const pixels = await image.removeAlpha().raw().toBuffer();
  if (options.watermark) await drawWatermark(pixels, width, height);
  let out = encode(sharp(pixels, { raw: { width, height, channels: 3 } }), options.format);
  if (options.exif) {
    out = out.withExif({ IFD0: { ImageDescription: options.exif.description, Software: options.exif.software }, IFD2: { UserComment: options.exif.comment } });
  }
  return out.toBuffer();
}

/** Alpha-blends the watermark into RGB pixels in place (the output stays 3-channel, no alpha). */
async function drawWatermark(pixels: Buffer, width: number, height: number): Promise<void> {
  const mark = watermarkSvg(width, height);
  if (!mark) return;
  const overlay = await sharp(mark.svg).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h, channels } = overlay.info;
  const left = width - w;
  const top = height - h;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * channels;
      const a = overlay.data[o + 3] / 255;
      if (a === 0) continue;
      const p = ((top + y) * width + left + x) * 3;
      for (let c = 0; c < 3; c++) pixels[p + c] = Math.round(overlay.data[o + c] * a + pixels[p + c] * (1 - a));
    }
  }
}

export function encode(image: Sharp, format: ImageFormat): Sharp {
  switch (format) {
    case 'png':
      return image.png({ compressionLevel: 6 });
    case 'jpeg':
      return image.jpeg({ quality: 90, mozjpeg: false });
    case 'webp':
      return image.webp({ quality: 90 });
  }
}

/** Strong enough that nothing is recognisable at any size. */
export function blurSigma(width: number, height: number): number {
  return Math.max(4, Math.min(width, height) / 12);
}

/** A small label in the bottom-right corner: a translucent dark box with white text. Null when the image is too small for it. */
export function watermarkSvg(width: number, height: number): { svg: Buffer; width: number; height: number } | null {
  const h = Math.max(12, Math.round(Math.min(width, height) / 16));
  const w = Math.round(h * 2.6);
  if (w + 2 > width || h + 2 > height) return null;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
<rect width="${w}" height="${h}" rx="${Math.round(h / 5)}" fill="#000" fill-opacity="0.45"/>
<text x="${w / 2}" y="${h * 0.74}" font-family="DejaVu Sans, sans-serif" font-size="${Math.round(h * 0.7)}" fill="#fff" fill-opacity="0.9" text-anchor="middle">${WATERMARK_TEXT}</text>
</svg>`;
  return { svg: Buffer.from(svg), width: w, height: h };
}
