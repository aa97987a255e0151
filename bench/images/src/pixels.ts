import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { fmt, percentile } from './stats';

// The diffusion engine's pixel work (upscale to the output size, shrink an edit's input to the
// native 32x32, PNG encoding): the hand-written code of a baseline commit against the sharp-based
// code of the working tree. Quality is PSNR against an exact reference: one synthetic scene
// (anti-aliased shapes and gradients) rendered at each size by 8x8 supersampling.

const USAGE = `Usage: node -r ./apps/gateway/test/integration/support/register-ts.js bench/images/src/pixels.ts [--baseline <rev>] [--runs <n>]
  --baseline  commit that still has png-encoder.ts and the hand-written resize.ts (default 397e3bf)
  --runs      timed runs per operation (default 30)`;
const ROOT = path.resolve(__dirname, '../../..');
const DIR = 'apps/media/src/engines/diffusion';

type Rgb = Uint8Array;
interface Impl {
  encodePng(rgb: Rgb, w: number, h: number): Buffer | Promise<Buffer>;
  upscaleCover(src: Rgb, sw: number, sh: number, w: number, h: number): Rgb | Promise<Rgb>;
  toSquareRgb(img: { data: Rgb; width: number; height: number; channels: 3 | 4 }, size: number): Rgb | Promise<Rgb>;
}

async function baseline(rev: string): Promise<Impl> {
  const dir = path.join(ROOT, 'tmp/bench-images/baseline', rev);
  mkdirSync(dir, { recursive: true });
  for (const file of ['png-encoder.ts', 'resize.ts'])
    writeFileSync(path.join(dir, file), execFileSync('git', ['show', `${rev}:${DIR}/${file}`], { cwd: ROOT }));
  return { ...(await import(path.join(dir, 'png-encoder.ts'))), ...(await import(path.join(dir, 'resize.ts'))) } as Impl;
}

/** The scene on [0,1]^2 (outside it too): a gradient background, a disc, a square and a thin ring. */
function scene(x: number, y: number): [number, number, number] {
  let c: [number, number, number] = [40 + 160 * x, 80 + 100 * y, 200 - 120 * x * y];
  if ((x - 0.38) ** 2 + (y - 0.42) ** 2 < 0.06) c = [220, 40, 40];
  if (Math.abs(x - 0.72) < 0.14 && Math.abs(y - 0.7) < 0.14) c = [30, 60, 210];
  const r = Math.hypot(x - 0.7, y - 0.25);
  if (r > 0.12 && r < 0.145) c = [250, 240, 60];
  return c;
}

/** Renders the window [x0,x0+span] x [y0,y0+span*h/w] of the scene at w x h, 8x8 samples per pixel. */
function render(w: number, h: number, x0 = 0, y0 = 0, span = 1): Rgb {
  const out = new Uint8Array(w * h * 3);
  const ss = 8;
  const px = span / w;
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      const sum = [0, 0, 0];
      for (let b = 0; b < ss; b++)
        for (let a = 0; a < ss; a++) scene(x0 + (i + (a + 0.5) / ss) * px, y0 + (j + (b + 0.5) / ss) * px).forEach((v, k) => (sum[k] += v));
      for (let k = 0; k < 3; k++) out[(j * w + i) * 3 + k] = Math.round(sum[k] / (ss * ss));
    }
  }
  return out;
}

function psnr(a: Rgb, b: Rgb): number {
  if (a.length !== b.length) throw new Error(`size mismatch: ${a.length} vs ${b.length}`);
  let se = 0;
  for (let i = 0; i < a.length; i++) se += (a[i] - b[i]) ** 2;
  return se === 0 ? Infinity : 10 * Math.log10((255 * 255) / (se / a.length));
}

async function timeMs(runs: number, fn: () => unknown): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await fn();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return percentile(ms, 50);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { baseline: { type: 'string' }, runs: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const rev = values.baseline ?? '397e3bf';
  const runs = Number(values.runs ?? 30);
  const impls: Array<[string, Impl]> = [
    [`hand-written (${rev})`, await baseline(rev)],
    ['sharp (working tree)', (await import(path.join(ROOT, DIR, 'rgb-image.ts'))) as Impl],
  ];
  const native = render(32, 32);
  const rows: string[] = ['| operation | implementation | p50 ms | PSNR dB vs reference | bytes |', '|---|---|---:|---:|---:|'];
  // Upscale: the native 32x32 image to the output size (cover + centre crop), against the scene rendered at that size.
  for (const [w, h] of [
    [256, 256],
    [512, 512],
    [1024, 1024],
    [512, 288],
  ]) {
    const m = Math.max(w, h);
    const reference = render(w, h, (1 - w / m) / 2, (1 - h / m) / 2, w / m);
    for (const [name, impl] of impls) {
      const out = await impl.upscaleCover(native, 32, 32, w, h);
      rows.push(
        `| upscale 32 to ${w}x${h} | ${name} | ${fmt(await timeMs(runs, () => impl.upscaleCover(native, 32, 32, w, h)), 2)} | ${fmt(psnr(out, reference), 2)} | |`,
      );
    }
  }
  // Shrink an edit's input to the native 32x32 (centre square), against the scene rendered at 32x32.
  for (const [w, h] of [
    [240, 240],
    [320, 240],
    [1024, 768],
  ]) {
    const input = { data: render(w, h, -(w / h - 1) / 2, 0, w / h), width: w, height: h, channels: 3 as const };
    for (const [name, impl] of impls) {
      const out = await impl.toSquareRgb(input, 32);
      rows.push(`| shrink ${w}x${h} to 32x32 | ${name} | ${fmt(await timeMs(runs, () => impl.toSquareRgb(input, 32)), 3)} | ${fmt(psnr(out, native), 2)} | |`);
    }
  }
  // PNG of the output: lossless, so PSNR is of the decoded file against its input (Infinity = identical).
  for (const size of [32, 512, 1024]) {
    const rgb = size === 32 ? native : render(size, size);
    for (const [name, impl] of impls) {
      const png = await impl.encodePng(rgb, size, size);
      const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      if (info.width !== size || info.height !== size || info.channels !== 3) throw new Error(`${name}: decoded ${info.width}x${info.height}x${info.channels}`);
      rows.push(
        `| PNG ${size}x${size} | ${name} | ${fmt(await timeMs(runs, () => impl.encodePng(rgb, size, size)), 2)} | ${psnr(data, rgb)} | ${png.length} |`,
      );
    }
  }
  process.stdout.write(`${rows.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
