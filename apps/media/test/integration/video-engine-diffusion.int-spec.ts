import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadCatalog } from '@svc/catalog';
import { REPO_ROOT } from '@svc/config';
import { DomainError, ErrorCode } from '@svc/errors';
import { DiffusionVideoEngine } from '../../src/video/engines/diffusion/diffusion-video.engine';
import { DiffusionVideoEngineFactory } from '../../src/video/engines/generation.providers';
import { VideoRequest, VideoRunContext } from '../../src/video/engines/video-engine';
import { decodeFrames, meanAbsDiff, probeVideo } from './support/video-engine-probe';

// The demo text/image-to-video engine on the committed zoo image model (onnxruntime-node), called
// directly: what comes out is an MP4 a player decodes at the size, rate and length asked for.

const SIDE = 64;

/** A 64x64 PNG split into two colours, left and right, or top and bottom. */
const twoTone = (a: string, b: string, vertical: boolean): Promise<Buffer> =>
  sharp({ create: { width: SIDE, height: SIDE, channels: 3, background: a } })
    .composite([{ input: { create: { width: vertical ? SIDE : SIDE / 2, height: vertical ? SIDE / 2 : SIDE, channels: 3, background: b } }, left: 0, top: 0 }])
    .png()
    .toBuffer();

const rgbOf = async (png: Buffer): Promise<Buffer> => sharp(png).removeAlpha().raw().toBuffer();

describe('DiffusionVideoEngine (embedded-diffusion-video, svc-zoo-image)', () => {
  // Built as the service builds it: the catalog's demo entry through its factory.
  const engine = new DiffusionVideoEngineFactory({ SVC_MODELS_DIR: path.join(REPO_ROOT, 'models'), IMAGE_THREADS: 1 }).create(
    loadCatalog().get('svc-zoo-video')!,
  ) as DiffusionVideoEngine;
  let workDir: string;
  const request = (over: Partial<VideoRequest> = {}): VideoRequest => ({
    model: 'svc-zoo-video',
    prompt: 'a red star on a blue background',
    durationSeconds: 1,
    width: SIDE,
    height: SIDE,
    fps: 24,
    seed: 11,
    options: {},
    ...over,
  });
  const context = (over: Partial<VideoRunContext> = {}): VideoRunContext => ({
    signal: new AbortController().signal,
    progress: () => undefined,
    workDir,
    ...over,
  });

  beforeAll(() => engine.ready(), 60_000);
  beforeEach(() => (workDir = mkdtempSync(path.join(os.tmpdir(), 'video-engine-diffusion-'))));
  afterEach(() => rmSync(workDir, { recursive: true, force: true }));
  afterAll(() => engine.close());

  it('makes an H.264 MP4 (yuv420p, faststart) at the requested duration, fps and size, and reports progress up to 1', async () => {
    const progress: number[] = [];
    const result = await engine.run(request({ width: 96, height: 64, fps: 12, durationSeconds: 1.5 }), context({ progress: (f) => progress.push(f) }));
    expect(result.contentType).toBe('video/mp4');
    expect(path.dirname(result.path)).toBe(workDir);
    expect(result.durationSeconds).toBeCloseTo(1.5, 1);
    const probed = await probeVideo(result.path);
    expect(probed).toMatchObject({ codec: 'h264', pixFmt: 'yuv420p', width: 96, height: 64, fps: 12, frames: 18, faststart: true });
    expect(probed.durationSeconds).toBeCloseTo(1.5, 1);
    expect(progress.at(-1)).toBe(1);
    expect(progress.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= progress[i - 1]))).toBe(true);
  });

  it('moves: consecutive frames differ, but not wildly, and the same seed gives the same video', async () => {
    const first = await engine.run(request(), context());
    const frames = await decodeFrames(first.path, SIDE, SIDE);
    expect(frames).toHaveLength(24);
    const steps = frames.slice(1).map((f, i) => meanAbsDiff(f, frames[i]));
    expect(Math.max(...steps)).toBeLessThan(20);
    expect(steps.filter((d) => d > 0.2).length).toBeGreaterThan(steps.length / 2);
    expect(meanAbsDiff(frames[0], frames[23])).toBeGreaterThan(1);

    const again = await engine.run(request(), context({ workDir: mkdtempSync(path.join(workDir, 'again-')) }));
    const replay = await decodeFrames(again.path, SIDE, SIDE);
    expect(meanAbsDiff(replay[12], frames[12])).toBeLessThan(0.5);
  });

  it('image-to-video: the first frame resembles the given image, not another one', async () => {
    const given = await twoTone('#f0e020', '#2030c0', false);
    const other = await twoTone('#e02020', '#f0f0f0', true);
    const result = await engine.run(request({ image: given, prompt: 'a yellow square on a blue background' }), context());
    const [first] = await decodeFrames(result.path, SIDE, SIDE);
    const toGiven = meanAbsDiff(first, await rgbOf(given));
    const toOther = meanAbsDiff(first, await rgbOf(other));
    expect(toGiven).toBeLessThan(40);
    expect(toGiven * 2).toBeLessThan(toOther);
  });

  it('stops when the job is cancelled, and refuses sizes, rates and images it cannot make with a 400', async () => {
    const controller = new AbortController();
    const run = engine.run(request({ durationSeconds: 4 }), context({ signal: controller.signal, progress: () => controller.abort() }));
    await expect(run).rejects.toMatchObject({ code: ErrorCode.ServiceUnavailable, message: 'Video generation was cancelled.' });

    for (const bad of [
      { width: 63 },
      { height: 0 },
      { fps: 0 },
      { durationSeconds: 0 },
      { durationSeconds: 61 },
      { prompt: '  ' },
      { image: Buffer.from('not an image') },
    ]) {
      const err = await engine.run(request(bad), context()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).status).toBe(400);
    }
  });
});
