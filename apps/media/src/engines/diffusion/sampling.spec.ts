import sharp from 'sharp';
import { ddimStep, ddimTimesteps } from './ddim';
import { encodePng, toSquareRgb, upscaleCover } from './rgb-image';
import { seededNormals } from './seeded-noise';
import { WordTokenizer } from './word-tokenizer';

describe('seededNormals', () => {
  it('reproduces the Python sampler sequence (models/zoo/image/sampler.py)', () => {
    const expected = [-1.2848381996154785, -0.9453527927398682, -0.6112802624702454, -0.5658326148986816, -1.972775936126709];
    const got = seededNormals(42, 5);
    expected.forEach((v, i) => expect(got[i]).toBeCloseTo(v, 5));
  });

  it('is standard normal', () => {
    const v = seededNormals(7, 20000);
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const variance = v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(variance).toBeGreaterThan(0.95);
    expect(variance).toBeLessThan(1.05);
  });
});

describe('ddimTimesteps', () => {
  it('matches the Python schedule, including image-to-image strength', () => {
    expect(ddimTimesteps(20, 1000)).toEqual([999, 949, 899, 849, 799, 749, 699, 649, 599, 549, 500, 450, 400, 350, 300, 250, 200, 150, 100, 50]);
    expect(ddimTimesteps(10, 1000, 0.6)).toEqual([599, 539, 480, 420, 360, 300, 240, 180, 120, 60]);
    expect(ddimTimesteps(1, 1000)).toEqual([999]);
  });
});

describe('ddimStep', () => {
  it('lands on the predicted clean image at the last step', () => {
    const x0 = 0.3;
    const eps = 0.5;
    const abar = 0.4;
    const x = new Float32Array([Math.sqrt(abar) * x0 + Math.sqrt(1 - abar) * eps]);
    ddimStep(x, new Float32Array([eps]), new Float32Array([0]), 1, abar, 1);
    expect(x[0]).toBeCloseTo(x0, 5);
  });
});

describe('encodePng', () => {
  it('writes a PNG whose pixels decode back', async () => {
    const rgb = Uint8Array.from({ length: 2 * 3 * 3 }, (_, i) => i * 10);
    const png = await encodePng(rgb, 2, 3);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(2);
    expect(png.readUInt32BE(20)).toBe(3);
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([2, 3, 3]);
    expect([...data]).toEqual([...rgb]);
    expect([...data.subarray(6, 12)]).toEqual([60, 70, 80, 90, 100, 110]);
  });
});

describe('resize', () => {
  it('upscales a flat image to a flat image of the requested size', async () => {
    const src = new Uint8Array(4 * 4 * 3).fill(200);
    const out = await upscaleCover(src, 4, 4, 10, 6);
    expect(out.length).toBe(10 * 6 * 3);
    expect(out.every((v) => v === 200)).toBe(true);
  });

  it('downsamples RGBA with alpha composited on white, from the centre square', async () => {
    const rgba = (width: number, height: number, pixel: (x: number) => number[]) => {
      const data = new Uint8Array(width * height * 4);
      for (let p = 0; p < width * height; p++) data.set(pixel(p % width), p * 4);
      return { data, width, height, channels: 4 as const };
    };
    expect([
      ...(await toSquareRgb(
        rgba(4, 4, () => [0, 0, 0, 255]),
        2,
      )),
    ]).toEqual(new Array(12).fill(0));
    expect([
      ...(await toSquareRgb(
        rgba(4, 4, () => [0, 0, 0, 0]),
        2,
      )),
    ]).toEqual(new Array(12).fill(255));
    // The opaque red columns at the sides lie outside the centre square.
    expect([
      ...(await toSquareRgb(
        rgba(6, 4, (x) => (x === 0 || x === 5 ? [255, 0, 0, 255] : [0, 0, 0, 0])),
        2,
      )),
    ]).toEqual(new Array(12).fill(255));
  });
});

describe('WordTokenizer', () => {
  it('lower-cases, strips punctuation, pads, and reports unknown words', () => {
    const t = new WordTokenizer(['<pad>', '<unk>', 'a', 'red', 'circle'], 6);
    expect(t.encode('A RED, circle!  zebra')).toEqual({ ids: [2, 3, 4, 1, 0, 0], unknown: ['zebra'] });
    expect(t.encode('').ids).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
