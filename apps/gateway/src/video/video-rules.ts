import { isSourceDuration, VideoConstraints } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { QueueVideoDto } from './video-request.dto';

/** Frames per second of the keyframe positions (the spec: "pinned to frame positions of the 24 fps output"). */
export const KEYFRAME_FPS = 24;

const ENHANCEMENT_FIELDS = [
  'upscale_factor',
  'enhancement_model',
  'target_fps',
  'slowdown_factor',
  'softness',
  'creativity',
  'realism',
  'sharp',
  'compression',
  'noise',
  'halo',
  'grain',
  'recover_detail',
  'h264_output',
  'output_format',
] as const;
const REFERENCE_FIELDS = [
  'reference_image_urls',
  'reference_video_urls',
  'reference_audio_urls',
  'reference_document_urls',
  'elements',
  'scene_image_urls',
  'omni_reference_task_type',
] as const;
const IMAGE_FIELDS = ['image_url', 'end_image_url'] as const;

export const invalid = (path: (string | number)[], message: string): DomainError => DomainError.validation([{ path, message }]);

/** Duration in whole seconds of a fixed `duration` value (`5s`), else undefined. */
export const fixedSeconds = (duration: string): number | undefined => (/^(\d+)s$/.exec(duration) ? Number(duration.slice(0, -1)) : undefined);

/** `@Element3` / `@Image2` mentions must name an element / scene image that was given. */
function checkMentions(prompt: string, tag: 'Element' | 'Image', given: number, field: string): void {
  for (const m of prompt.matchAll(new RegExp(`@${tag}(\\d+)`, 'g'))) {
    const n = Number(m[1]);
    if (n < 1 || n > given) throw invalid(['prompt'], `mentions @${tag}${n}, but ${field} has ${given} item${given === 1 ? '' : 's'}`);
  }
}

/** The queue request against its model's catalog constraints: what the spec's tables and the model allow. */
export function checkQueueRules(input: QueueVideoDto, c: VideoConstraints): void {
  const chars = [...input.prompt].length;
  if (chars > c.promptCharacterLimit) throw invalid(['prompt'], `must be at most ${c.promptCharacterLimit} characters for this model (it has ${chars})`);
  if (input.negative_prompt && [...input.negative_prompt].length > c.promptCharacterLimit)
    throw invalid(['negative_prompt'], `must be at most ${c.promptCharacterLimit} characters for this model`);
  checkOffered(input, c);
  const given = (fields: readonly string[]) => fields.filter((f) => (input as Record<string, unknown>)[f] !== undefined);
  if (!c.enhancement) for (const f of given(ENHANCEMENT_FIELDS)) throw invalid([f], 'is for enhancement models only');
  if (!c.referenceToVideo) for (const f of given(REFERENCE_FIELDS)) throw invalid([f], 'is not supported by this model (reference-to-video models only)');
  if (!c.imageToVideo) for (const f of given(IMAGE_FIELDS)) throw invalid([f], 'is not supported by this model (image-to-video models only)');
  if (c.enhancement && !input.video_url) throw invalid(['video_url'], 'is required: this model enhances the video it is given');
  if (!c.enhancement && input.video_url) throw invalid(['video_url'], 'is for enhancement models only');
  if (input.enhancement_model && !(c.topaz?.models ?? []).includes(input.enhancement_model))
    throw invalid(['enhancement_model'], `must be one of: ${(c.topaz?.models ?? []).join(', ') || 'none for this model'}`);
  if (input.h264_output && input.output_format) throw invalid(['h264_output'], 'cannot be combined with output_format (HDR output is H.265 or ProRes)');
  if (input.audio_url) throw invalid(['audio_url'], 'is not supported by this model (no model here takes background music)');
  if (isSourceDuration(input.duration) && !input.reference_video_urls?.length)
    throw invalid(['reference_video_urls'], `is required when duration is "${input.duration}" (the output matches the source clip)`);
  checkReferences(input);
}

function checkOffered(input: QueueVideoDto, c: VideoConstraints): void {
  if (c.durations && !c.durations.includes(input.duration)) throw invalid(['duration'], `must be one of ${c.durations.join(', ')} for this model`);
  if (input.resolution && c.resolutions && !c.resolutions.includes(input.resolution))
    throw invalid(['resolution'], `must be one of ${c.resolutions.join(', ')} for this model`);
  if (input.aspect_ratio && c.aspectRatios && !c.aspectRatios.includes(input.aspect_ratio))
    throw invalid(['aspect_ratio'], `must be one of ${c.aspectRatios.join(', ')} for this model`);
}

function checkReferences(input: QueueVideoDto): void {
  if (input.reference_audio_urls?.length && !input.reference_image_urls?.length && !input.reference_video_urls?.length)
    throw invalid(['reference_audio_urls'], 'must be combined with at least one reference image or reference video (audio-only references are refused)');
  checkMentions(input.prompt, 'Element', input.elements?.length ?? 0, 'elements');
  checkMentions(input.prompt, 'Image', input.scene_image_urls?.length ?? 0, 'scene_image_urls');
  const keyframes = input.keyframes ?? [];
  const seconds = fixedSeconds(input.duration);
  const seen = new Set<number>();
  keyframes.forEach((k, i) => {
    if (seen.has(k.frame_index)) throw invalid(['keyframes', i, 'frame_index'], `repeats frame ${k.frame_index}: each frame_index must be unique`);
    seen.add(k.frame_index);
    if (seconds !== undefined && k.frame_index > seconds * KEYFRAME_FPS)
      throw invalid(['keyframes', i, 'frame_index'], `must be at most duration x ${KEYFRAME_FPS} = ${seconds * KEYFRAME_FPS}`);
  });
}

/** `editing` and `extension` are the spec's aliases of `edit` and `extend`. */
export const omniTaskType = (value: QueueVideoDto['omni_reference_task_type']): string | undefined =>
  value === 'editing' ? 'edit' : value === 'extension' ? 'extend' : value;
