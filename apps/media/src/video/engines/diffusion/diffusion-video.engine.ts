import path from 'node:path';
import sharp from 'sharp';
import { DomainError, ErrorCode } from '@svc/errors';
import { BoundedQueue } from '../../../engines/diffusion/bounded-queue';
import { LazyDiffusionModel, LoadedDiffusionModel } from '../../../engines/diffusion/lazy-diffusion-model';
import { DenoiserSessionFactory } from '../../../engines/diffusion/onnx-session';
import { probeVideo } from '../../ffmpeg/probe-video';
import { VideoEngine, VideoRequest, VideoResult, VideoRunContext } from '../video-engine';
import { fromRgb, Keyframe, sampleKeyframes } from './keyframe-sampler';
import { blendFrame, keyframeTimes } from './keyframe-timeline';
import { Mp4Encoder } from './mp4-encoder';
import { NoisePath } from './noise-path';

export interface DiffusionVideoEngineOptions {
  /** The svc-diffusion-v1 ONNX denoiser (the embedded image model's file). */
  modelPath: string;
  configPath?: string;
  /** onnxruntime intra-op threads; default all cores but one. */
  threads?: number;
  maxParallel?: number;
  maxQueue?: number;
  /** Frames the model draws per second of video; the frames between are blends. Default 4. */
  keyframesPerSecond?: number;
  /** DDIM steps per keyframe. Default 12. */
  steps?: number;
  /** How fast the walk through noise space moves, in anchors per second. Default 1. */
  motion?: number;
  /** Keyframes denoised in one batch of the model. Default 8. */
  batch?: number;
  sessionFactory?: DenoiserSessionFactory;
}

export const DIFFUSION_VIDEO_LIMITS = { maxSeconds: 60, maxFps: 60, maxSide: 1920 } as const;

/** Image-to-video: the first keyframe keeps most of the given image, later ones drift further from it. */
const I2V_STRENGTH = { first: 0.3, last: 0.65, rampSeconds: 2 } as const;

/**
 * The demo text-to-video and image-to-video model: the embedded image diffusion model
 * (svc-zoo-image, 32x32) draws keyframes along a smooth walk through its noise space (slerp between
 * seeded noise anchors, the same prompt for every keyframe), the frames between keyframes are
 * linear blends, and ffmpeg scales them to the requested size and encodes H.264. Image-to-video
 * starts every keyframe from the given image, re-noised (img2img) more as the clip goes on.
 * It is a demonstration of the pipeline, not a video model: nothing in it was trained on motion.
 */
export class DiffusionVideoEngine implements VideoEngine {
  readonly kind = 'embedded-diffusion-video';
  private readonly queue: BoundedQueue;
  private readonly model: LazyDiffusionModel;
  private closed = false;

  constructor(private readonly options: DiffusionVideoEngineOptions) {
    this.queue = new BoundedQueue(options.maxParallel ?? 1, options.maxQueue ?? 4, 'The video model');
    this.model = new LazyDiffusionModel(options);
  }

  get stats(): { running: number; queued: number } {
    return this.queue.stats();
  }

  async ready(): Promise<void> {
    await this.model.ready();
  }

  async run(request: VideoRequest, ctx: VideoRunContext): Promise<VideoResult> {
    if (this.closed) throw new DomainError(ErrorCode.ServiceUnavailable, 'The video model is shutting down.');
    validate(request);
    const model = await this.model.ready();
    return this.queue.run(() => this.render(request, ctx, model));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.model.close();
  }

  private async render(req: VideoRequest, ctx: VideoRunContext, { config, session, tokenizer }: LoadedDiffusionModel): Promise<VideoResult> {
    const size = config.resolution;
    const kps = this.options.keyframesPerSecond ?? 4;
    const steps = this.options.steps ?? 12;
    const batch = this.options.batch ?? 8;
    const seed = req.seed ?? Math.floor(Math.random() * 2 ** 32);
    const init = req.image ? fromRgb(await givenImage(req.image, req.width, req.height, size), size) : undefined;
    const times = keyframeTimes(req.durationSeconds, kps);
    const walk = new NoisePath(seed, 3 * size * size, this.options.motion ?? 1);
    const keyframes: Keyframe[] = times.map((t) => ({ noise: walk.at(t), strength: init ? i2vStrength(t) : 1 }));
    const cond = tokenizer.encode(req.prompt).ids;
    const uncond = tokenizer.encode(req.negativePrompt ?? '').ids;

    const output = path.join(ctx.workDir, 'diffusion-video.mp4');
    const frames = Math.max(1, Math.round(req.durationSeconds * req.fps));
    // ffmpeg encodes the frames of each batch of keyframes while the model draws the next (two cores busy, not one).
    const encoder = new Mp4Encoder({
      sourceWidth: size,
      sourceHeight: size,
      width: req.width,
      height: req.height,
      fps: req.fps,
      fit: init ? 'fill' : 'cover',
      output,
      signal: ctx.signal,
    });
    const totalSteps = Math.ceil(keyframes.length / batch) * steps;
    let done = 0;
    let written = 0;
    const drawn: Uint8Array[] = [];
    try {
      for (let i = 0; i < keyframes.length; i += batch) {
        const rgb = await sampleKeyframes({
          session,
          config,
          cond,
          uncond,
          steps,
          guidance: config.defaults.guidance,
          init,
          keyframes: keyframes.slice(i, i + batch),
          signal: ctx.signal,
          onStep: () => ctx.progress((0.95 * ++done) / totalSteps),
        });
        drawn.push(...rgb);
        // A frame needs the keyframes on both sides of its time.
        const all = drawn.length === times.length;
        for (; written < frames && (all || written / req.fps < times[drawn.length - 1]); written++)
          await encoder.write(blendFrame(drawn, times, written, req.fps, new Uint8Array(size * size * 3)));
      }
      await encoder.finish();
    } catch (err) {
      encoder.abort();
      throw err;
    }
    const { seconds: durationSeconds } = await probeVideo(output, ctx.signal);
    ctx.progress(1);
    return { path: output, contentType: 'video/mp4', durationSeconds };
  }
}

function i2vStrength(seconds: number): number {
  const ramp = Math.min(1, seconds / I2V_STRENGTH.rampSeconds);
  return I2V_STRENGTH.first + (I2V_STRENGTH.last - I2V_STRENGTH.first) * ramp;
}

/**
 * The given image as the model sees it: cropped to the video's aspect ratio (centre), then
 * squeezed to the model's square; the encoder stretches the frames back (`fit: fill`), so the
 * first frame lines up with the image.
 */
async function givenImage(image: Buffer, width: number, height: number, size: number): Promise<Uint8Array> {
  try {
    const aspect = await sharp(image).rotate().flatten({ background: '#ffffff' }).resize(width, height, { fit: 'cover', position: 'centre' }).png().toBuffer();
    const rgb = await sharp(aspect).resize(size, size, { fit: 'fill', kernel: 'cubic' }).removeAlpha().raw().toBuffer();
    return new Uint8Array(rgb.buffer, rgb.byteOffset, rgb.byteLength);
  } catch {
    throw new DomainError(ErrorCode.Validation, 'The reference image could not be decoded (PNG, JPEG or WebP expected).');
  }
}

function validate(r: VideoRequest): void {
  const bad = (msg: string) => new DomainError(ErrorCode.Validation, msg);
  const { maxSeconds, maxFps, maxSide } = DIFFUSION_VIDEO_LIMITS;
  if (!(r.durationSeconds > 0 && r.durationSeconds <= maxSeconds)) throw bad(`duration must be more than 0 and at most ${maxSeconds} seconds for this model`);
  if (!(r.fps >= 1 && r.fps <= maxFps)) throw bad(`fps must be from 1 to ${maxFps} for this model`);
  for (const [name, v] of [
    ['width', r.width],
    ['height', r.height],
  ] as const) {
    if (!Number.isInteger(v) || v < 2 || v > maxSide || v % 2 !== 0) throw bad(`${name} must be an even number of pixels from 2 to ${maxSide}`);
  }
  if (!r.prompt.trim()) throw bad('prompt must not be empty');
}
