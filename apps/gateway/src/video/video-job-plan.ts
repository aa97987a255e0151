import { ModelDefinition } from '@svc/catalog';
import { frameSize, isSourceAspect, ProbeVideoReply, VIDEO_RESOLUTIONS, VideoConstraints, VideoJobSpec, VideoUsage } from '@svc/contracts';
import { videoUsageOf, VideoPriceRequest } from '@svc/pricing';
import { fixedSeconds, invalid, omniTaskType } from './video-rules';
import { QueueVideoDto, QuoteVideoDto } from './video-request.dto';

const even = (n: number): number => Math.max(2, 2 * Math.round(n / 2));

/** The upscale factor of a request: as given, else 2 where the model offers it (the spec's default), else 1. */
export function upscaleFactorOf(model: ModelDefinition, requested: number | undefined): number {
  return requested ?? (model.pricing.video?.upscale?.['2x'] ? 2 : 1);
}

/** What the quote and the hold price: the request's pricing fields, the measured input and the model's defaults. */
export function usageOf(model: ModelDefinition, c: VideoConstraints, input: QuoteVideoDto, source?: ProbeVideoReply, referenceSeconds?: number): VideoUsage {
  const request: VideoPriceRequest = {
    ...input,
    upscale_factor: c.enhancement ? upscaleFactorOf(model, input.upscale_factor) : input.upscale_factor,
    reference_video_total_duration: referenceSeconds ?? (input as { reference_video_total_duration?: number }).reference_video_total_duration,
    source: source && { seconds: source.seconds, fps: source.fps },
  };
  return videoUsageOf(model.pricing.video, request, {
    resolution: c.defaultResolution,
    aspectRatio: c.defaultAspectRatio,
    generationSeconds: c.generationSeconds,
  });
}

/** The engine's request (inputs added by the caller): output size, frame rate and duration decided here. */
export function jobSpecOf(
  model: ModelDefinition,
  c: VideoConstraints,
  input: QueueVideoDto,
  source?: ProbeVideoReply,
  referenceSeconds?: number,
): VideoJobSpec {
  const { model: _model, prompt, negative_prompt, seed, video_url: _v, image_url: _i, ...options } = input;
  const base = {
    model: model.id,
    prompt,
    negativePrompt: negative_prompt,
    seed,
    options: { ...options, omni_reference_task_type: omniTaskType(input.omni_reference_task_type) },
  };
  if (c.enhancement) {
    if (!source) throw invalid(['video_url'], 'is required: this model enhances the video it is given');
    if (source.seconds > c.maxInputSeconds)
      throw invalid(['video_url'], `must be at most ${c.maxInputSeconds} seconds long for this model (it is ${source.seconds.toFixed(1)} s)`);
    const factor = upscaleFactorOf(model, input.upscale_factor);
    const slowdown = input.slowdown_factor ?? 1;
    return {
      ...base,
      width: even(source.width * factor),
      height: even(source.height * factor),
      fps: input.target_fps ?? Math.round(source.fps * 1000) / 1000,
      durationSeconds: source.seconds * slowdown,
      options: {
        ...base.options,
        upscale_factor: factor,
        slowdown_factor: slowdown,
        output_format: input.output_format ?? (input.h264_output ? undefined : c.defaultOutputFormat),
      },
    };
  }
  const resolution = input.resolution ?? c.defaultResolution ?? '720p';
  const shortSide = (VIDEO_RESOLUTIONS as Record<string, number>)[resolution];
  if (!shortSide) throw invalid(['resolution'], `"${resolution}" is not an output resolution for this model`);
  const aspect = input.aspect_ratio && !isSourceAspect(input.aspect_ratio) ? input.aspect_ratio : c.defaultAspectRatio;
  const seconds = fixedSeconds(input.duration) ?? (input.duration === '1 gen' ? c.generationSeconds : Math.ceil(referenceSeconds ?? c.generationSeconds));
  return { ...base, ...frameSize(shortSide, aspect), fps: c.fps, durationSeconds: seconds };
}
