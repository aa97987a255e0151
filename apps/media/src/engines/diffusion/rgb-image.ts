import sharp from 'sharp';

/** Pixels, PNG encoding and resampling for the native 32x32 model, all in libvips (sharp). */
export interface RgbImage {
  /** Row-major pixels, `channels` bytes each (3 = RGB, 4 = RGBA; alpha is composited on white). */
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

const raw = (data: Uint8Array, width: number, height: number, channels: 3 | 4) =>
  sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { raw: { width, height, channels } });

const pixels = (buffer: Buffer): Uint8Array => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);

/** 8-bit RGB pixels (row-major, 3 bytes each) to a lossless PNG file (adaptive row filters, zlib level 6). */
export async function encodePng(rgb: Uint8Array, width: number, height: number): Promise<Buffer> {
  if (rgb.length !== width * height * 3) throw new Error(`expected ${width * height * 3} bytes of RGB, got ${rgb.length}`);
  return raw(rgb, width, height, 3).png({ compressionLevel: 6, adaptiveFiltering: true }).toBuffer();
}

/** Scales RGB to cover `width` x `height` (keeping the aspect ratio) and crops the centre; libvips enlarges bicubic whatever the kernel. */
export async function upscaleCover(src: Uint8Array, sw: number, sh: number, width: number, height: number): Promise<Uint8Array> {
  return pixels(await raw(src, sw, sh, 3).resize(width, height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' }).raw().toBuffer());
}

/**
 * Centre-crops to a square, composites alpha on white and shrinks to `size` x `size` RGB (for
 * image-to-image input). Catmull-Rom: of libvips' kernels the closest to an area average
 * (bench/images/src/pixels.ts).
 */
export async function toSquareRgb(img: RgbImage, size: number): Promise<Uint8Array> {
  const side = Math.min(img.width, img.height);
  const left = Math.floor((img.width - side) / 2);
  const top = Math.floor((img.height - side) / 2);
  const out = await raw(img.data, img.width, img.height, img.channels)
    .extract({ left, top, width: side, height: side })
    .flatten({ background: '#ffffff' })
    .resize(size, size, { kernel: 'cubic' })
    .removeAlpha()
    .raw()
    .toBuffer();
  return pixels(out);
}
