/**
 * The contract between the video job runner (apps/media/src/video/jobs) and the engines that
 * make or transform a video (ffmpeg enhancement, the embedded text/image-to-video demo model, the
 * upstream OpenAI-videos adapter). The runner validates and resolves the request first (URLs
 * fetched through the SSRF guard, data URLs decoded, duration and size decided) and owns the
 * job's scratch directory; an engine only turns a VideoRequest into a file in it.
 */
export interface VideoRequest {
  /** Catalog model id. */
  model: string;
  prompt: string;
  negativePrompt?: string;
  /** Seconds of output video (after `slowdown_factor` for interpolation). */
  durationSeconds: number;
  /** Output frame size in pixels (even numbers). */
  width: number;
  height: number;
  /** Output frames per second. */
  fps: number;
  seed?: number;
  /** The first frame or reference image (image-to-video), already fetched. */
  image?: Buffer;
  /** The input video (enhancement, video-to-video), already fetched. */
  video?: Buffer;
  /** The request's remaining fields as given (engine knobs: upscale_factor, target_fps, softness, ...). */
  options: Record<string, unknown>;
}

export interface VideoRunContext {
  /** Aborted when the job is cancelled or its worker shuts down. */
  signal: AbortSignal;
  /** Reports progress, a fraction from 0 to 1 (for `/video/retrieve`). */
  progress(fraction: number): void;
  /** A scratch directory owned by this job, removed after it. */
  workDir: string;
  /**
   * The id an upstream server gave this job's work in an earlier attempt whose worker stopped
   * (shutdown, crash): resume it rather than start (and pay for) the same video again.
   */
  resumeFrom?: string;
  /** Records the upstream's id of this job's work with the job, for `resumeFrom` in a later attempt. */
  started?(upstreamId: string): Promise<void>;
  /**
   * True when `signal` aborted because this worker is shutting down: the job runs again elsewhere
   * (`resumeFrom`), so work an upstream holds for it is kept, not deleted.
   */
  handingOver?(): boolean;
}

export interface VideoResult {
  /** The finished file, inside `workDir`. */
  path: string;
  /** `video/mp4`, or `video/quicktime` for ProRes. */
  contentType: string;
  /** Measured duration of the file, seconds. */
  durationSeconds: number;
}

export interface VideoEngine {
  /** The catalog's engine kind this implements, e.g. `ffmpeg-upscale`, `diffusion-video`, `openai-videos`. */
  readonly kind: string;
  run(request: VideoRequest, ctx: VideoRunContext): Promise<VideoResult>;
  /** Deletes what an upstream still holds for a job that will not run again (its last attempt failed). */
  discard?(upstreamId: string): Promise<void>;
}
