import exifReader from 'exif-reader';
import sharp from 'sharp';
import { finishImage, watermarkSvg } from './image-output';

/** A 32x32 RGB test pattern: a red square on blue. */
function pattern(): Uint8Array {
  const rgb = new Uint8Array(32 * 32 * 3);
  for (let y = 0; y < 32; y++)
    for (let x = 0; x < 32; x++) {
      const inside = x >= 8 && x < 24 && y >= 8 && y < 24;
      rgb.set(inside ? [220, 30, 30] : [30, 60, 200], (y * 32 + x) * 3);
    }
  return rgb;
}

const opts = { width: 200, height: 100, format: 'png' as const, watermark: false, blur: false };

describe('finishImage', () => {
  it('resizes from the native size to the requested one, in each format', async () => {
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const meta = await sharp(await finishImage(pattern(), 32, 32, { ...opts, format })).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual([format, 200, 100]);
    }
  });

  it('is deterministic', async () => {
    const a = await finishImage(pattern(), 32, 32, { ...opts, watermark: true });
    const b = await finishImage(pattern(), 32, 32, { ...opts, watermark: true });
    expect(a.equals(b)).toBe(true);
  });

  it('writes the prompt and settings to EXIF only when asked', async () => {
    const exif = { description: 'a red square', software: 'svc test', comment: '{"seed":1}' };
    const withExif = await sharp(await finishImage(pattern(), 32, 32, { ...opts, format: 'jpeg', exif })).metadata();
    const parsed = exifReader(withExif.exif!);
    expect(parsed.Image?.ImageDescription).toBe('a red square');
    expect(parsed.Image?.Software).toBe('svc test');
    expect((await sharp(await finishImage(pattern(), 32, 32, opts)).metadata()).exif).toBeUndefined();
  });

  it('marks the bottom-right corner only, and skips images too small for the mark', async () => {
    const raw = async (watermark: boolean) =>
      sharp(await finishImage(pattern(), 32, 32, { ...opts, width: 256, height: 256, watermark }))
        .raw()
        .toBuffer();
    const [marked, clean] = await Promise.all([raw(true), raw(false)]);
    const at = (buf: Buffer, x: number, y: number) => buf[(y * 256 + x) * 3];
    let changed = 0;
    for (let y = 240; y < 256; y++) for (let x = 210; x < 256; x++) if (at(marked, x, y) !== at(clean, x, y)) changed++;
    expect(changed).toBeGreaterThan(100);
    for (let y = 0; y < 200; y++) for (let x = 0; x < 200; x++) expect(at(marked, x, y)).toBe(at(clean, x, y));
    expect(watermarkSvg(20, 20)).toBeNull();
  });

  it('blurs so that edges disappear', async () => {
    const edge = async (blur: boolean) => {
      const data = await sharp(await finishImage(pattern(), 32, 32, { ...opts, width: 128, height: 128, blur }))
        .raw()
        .toBuffer();
      // The red/blue border at x = 32 in a 128-wide image (the square spans 32..96).
      return Math.abs(data[(64 * 128 + 30) * 3] - data[(64 * 128 + 34) * 3]);
    };
    expect(await edge(false)).toBeGreaterThan(100);
    expect(await edge(true)).toBeLessThan(60);
  });
});
