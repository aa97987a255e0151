import { frameSize, isSourceAspect, isSourceDuration, VIDEO_RESOLUTIONS, VideoUsage, WIDEST_ASPECT_RATIO } from '@svc/contracts';
import { PricingError } from './quote';
import { VideoPricing } from './video-pricing.schema';

/** The pricing inputs of `/video/quote` (and of a queued job, which is held at its quote). */
export interface VideoPriceRequest {
  duration: string;
  aspect_ratio?: string;
  resolution?: string;
  upscale_factor?: number;
  target_fps?: number;
  slowdown_factor?: number;
  audio?: boolean;
  reference_video_total_duration?: number;
  /** Enhancement models: the input video's measured duration and frame rate (from `video_url`). */
  source?: { seconds: number; fps: number };
}

/** A model's defaults for what a request may leave out (catalog `constraints` of video models). */
export interface VideoPriceDefaults {
  resolution?: string;
  aspectRatio?: string;
  /** Seconds of one generation (`duration: "1 gen"`). */
  generationSeconds?: number;
}

/** Bad pricing input: a 400 naming `field`. */
export class VideoPriceInputError extends PricingError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export const MAX_REFERENCE_VIDEO_SECONDS = 150;
/** Source-matched output (`-1` / `auto`) takes a source of 4 to 30 s. */
export const SOURCE_MATCH_SECONDS = { min: 4, max: 30 } as const;

const fail = (field: string, message: string): never => {
  throw new VideoPriceInputError(field, message);
};

/** What a video request will be billed for, at its model's rate (video-pricing.schema.ts). */
export function videoUsageOf(p: VideoPricing | undefined, r: VideoPriceRequest, defaults: VideoPriceDefaults = {}): VideoUsage {
  const reference = r.reference_video_total_duration;
  if (reference !== undefined && reference > MAX_REFERENCE_VIDEO_SECONDS)
    fail('reference_video_total_duration', `must be at most ${MAX_REFERENCE_VIDEO_SECONDS} seconds (all reference videos together)`);
  if (p?.upscale) return upscaleUsage(p, r);
  if (p?.interpolation) return interpolationUsage(r);
  const seconds = outputSeconds(r, defaults);
  if (isSourceAspect(r.aspect_ratio) && reference === undefined)
    fail('reference_video_total_duration', `is required when aspect_ratio is "${r.aspect_ratio}" (the output matches the source clip)`);
  if (reference !== undefined && p?.video_input) {
    const pixels = pixelsOf(r, defaults);
    return { kind: 'video', rate: 'video-input', seconds, resolution: resolutionOf(r, defaults), pixels, inputSeconds: Math.ceil(reference) };
  }
  if (p?.per_megapixel_second) {
    if (!r.aspect_ratio) fail('aspect_ratio', 'is required: this model is priced per megapixel of the frame it sets');
    return { kind: 'video', rate: 'megapixel', seconds, resolution: resolutionOf(r, defaults), pixels: pixelsOf(r, defaults), audio: r.audio ?? true };
  }
  const resolution = resolutionOf(r, defaults);
  const offered = Object.keys(p?.per_second ?? {});
  if (!offered.includes(resolution)) fail('resolution', `"${resolution}" is not offered by this model; one of: ${offered.join(', ') || 'none'}`);
  return { kind: 'video', rate: 'resolution', seconds, resolution, audio: r.audio ?? true };
}

function outputSeconds(r: VideoPriceRequest, defaults: VideoPriceDefaults): number {
  if (isSourceDuration(r.duration)) {
    const reference = r.reference_video_total_duration;
    if (reference === undefined)
      return fail('reference_video_total_duration', `is required when duration is "${r.duration}" (the output matches the source clip)`);
    if (reference < SOURCE_MATCH_SECONDS.min || reference > SOURCE_MATCH_SECONDS.max)
      fail('reference_video_total_duration', `must be ${SOURCE_MATCH_SECONDS.min} to ${SOURCE_MATCH_SECONDS.max} seconds when duration is "${r.duration}"`);
    return Math.ceil(reference);
  }
  if (r.duration === '1 gen') return defaults.generationSeconds ?? 5;
  const m = /^([1-9]|[12]\d|30)s$/.exec(r.duration);
  return m ? Number(m[1]) : fail('duration', 'must be one of 1s to 30s, -1, 1 gen, auto');
}

function resolutionOf(r: VideoPriceRequest, defaults: VideoPriceDefaults): string {
  const resolution = r.resolution ?? defaults.resolution;
  return resolution ?? fail('resolution', 'is required: this model is priced by resolution');
}

function pixelsOf(r: VideoPriceRequest, defaults: VideoPriceDefaults): number {
  const resolution = resolutionOf(r, defaults);
  const shortSide = (VIDEO_RESOLUTIONS as Record<string, number>)[resolution];
  if (!shortSide) fail('resolution', `"${resolution}" does not set a frame size; one of: ${Object.keys(VIDEO_RESOLUTIONS).join(', ')}`);
  const aspect =
    r.aspect_ratio && !isSourceAspect(r.aspect_ratio)
      ? r.aspect_ratio
      : isSourceAspect(r.aspect_ratio)
        ? WIDEST_ASPECT_RATIO
        : (defaults.aspectRatio ?? '16:9');
  const { width, height } = frameSize(shortSide, aspect);
  return width * height;
}

function sourceOf(r: VideoPriceRequest): { seconds: number; fps: number } {
  if (r.source) return r.source;
  const m = /^(\d+)s$/.exec(r.duration);
  return m
    ? { seconds: Number(m[1]), fps: 0 }
    : fail('video_url', 'is needed to price this enhancement (its duration is detected from the video), or give a duration in seconds');
}

function upscaleUsage(p: VideoPricing, r: VideoPriceRequest): VideoUsage {
  const factor = `${r.upscale_factor ?? 2}x` as '1x' | '2x' | '4x';
  if (!p.upscale?.[factor]) fail('upscale_factor', `${r.upscale_factor ?? 2} is not offered by this model; one of: ${Object.keys(p.upscale ?? {}).join(', ')}`);
  const source = sourceOf(r);
  return { kind: 'video', rate: 'upscale', seconds: Math.ceil(source.seconds), resolution: factor, fps: r.target_fps ?? Math.round(source.fps) };
}

function interpolationUsage(r: VideoPriceRequest): VideoUsage {
  const source = sourceOf(r);
  const fps = r.target_fps ?? Math.round(source.fps);
  if (!fps) fail('target_fps', 'is required to price frame interpolation without a video_url');
  return { kind: 'video', rate: 'interpolation', seconds: Math.ceil(source.seconds) * (r.slowdown_factor ?? 1), resolution: 'source', fps };
}
