import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, ErrorCode } from '@svc/errors';
import { hostsOf, UpstreamErrors } from '@svc/upstream';
import { BoundedQueue } from '../../../engines/diffusion/bounded-queue';
import { probeVideo } from '../../ffmpeg/probe-video';
import { VideoEngine, VideoRequest, VideoResult, VideoRunContext } from '../video-engine';
import { imageContentType } from './image-type';
import { OpenAIVideosClient } from './openai-videos.client';
import { UpstreamVideo } from './upstream-video.schema';

export interface OpenAIVideosEngineOptions {
  /** e.g. `https://api.openai.com/v1` */
  baseUrl: string;
  /** The model name the server knows (`sora-2`). */
  model: string;
  apiKey?: string;
  /** The whole job (create, generation, download) must finish within this. */
  timeoutMs: number;
  maxParallel?: number;
  maxQueue?: number;
  /** Polling starts at `pollMinMs` and backs off by 1.5x to `pollMaxMs`. Defaults 500 and 5000. */
  pollMinMs?: number;
  pollMaxMs?: number;
  /** Largest video accepted from the server; default 2 GiB. */
  maxDownloadBytes?: number;
}

/** A single call (create, one poll) never waits longer than this, whatever the job's deadline. */
const REQUEST_TIMEOUT_MS = 60_000;
/** Polls that fail in a row (server hiccups) before the job is given up. */
const MAX_POLL_FAILURES = 3;
const cancelled = () => new DomainError(ErrorCode.ServiceUnavailable, 'Video generation was cancelled.');

/**
 * Adapter for a server that speaks the OpenAI videos API (OpenAI's Sora, and the gateways and
 * servers that copy its shape): create the job, poll it (its progress becomes ours), stream the
 * MP4 into the job's directory, then delete the upstream copy. Cancellation and our deadline
 * delete the upstream job too (the API's only way to stop one).
 */
export class OpenAIVideosEngine implements VideoEngine {
  readonly kind = 'openai-compatible';
  private readonly errors: UpstreamErrors;
  private readonly client: OpenAIVideosClient;
  private readonly queue: BoundedQueue;

  constructor(private readonly options: OpenAIVideosEngineOptions) {
    this.errors = new UpstreamErrors('video', { hosts: hostsOf([options.baseUrl]), secrets: [options.apiKey] });
    this.client = new OpenAIVideosClient(options.baseUrl, options.apiKey, this.errors);
    this.queue = new BoundedQueue(options.maxParallel ?? 8, options.maxQueue ?? 64, 'The video server');
  }

  run(request: VideoRequest, ctx: VideoRunContext): Promise<VideoResult> {
    return this.queue.run(() => this.generate(request, ctx));
  }

  private async generate(req: VideoRequest, ctx: VideoRunContext): Promise<VideoResult> {
    const deadline = Date.now() + this.options.timeoutMs;
    const signal = () => AbortSignal.any([ctx.signal, AbortSignal.timeout(Math.max(1, Math.min(REQUEST_TIMEOUT_MS, deadline - Date.now())))]);
    let image: { bytes: Buffer; contentType: string } | undefined;
    if (req.image) {
      const contentType = imageContentType(req.image);
      if (!contentType) throw new DomainError(ErrorCode.Validation, 'The reference image must be a PNG, JPEG or WebP file.');
      image = { bytes: req.image, contentType };
    }
    const created = (ctx.resumeFrom && (await this.resumed(ctx.resumeFrom, ctx, signal))) || (await this.create(req, image, ctx, signal));
    let finished = false;
    try {
      await this.waitFor(created, deadline, ctx, signal);
      const output = path.join(ctx.workDir, 'upstream-video.mp4');
      await this.guard(ctx, () =>
        this.client.download(
          created.id,
          output,
          this.options.maxDownloadBytes ?? 2 ** 31,
          AbortSignal.any([ctx.signal, AbortSignal.timeout(Math.max(1, deadline - Date.now()))]),
        ),
      );
      const { seconds: durationSeconds } = await probeVideo(output, ctx.signal).catch(() => {
        if (ctx.signal.aborted) throw cancelled();
        throw new DomainError(ErrorCode.Upstream, 'The video server answered a file that is not a playable video.');
      });
      ctx.progress(1);
      finished = true;
      return { path: output, contentType: 'video/mp4', durationSeconds };
    } finally {
      // Privacy: the upstream copy goes as soon as we have ours (or the job failed or was cancelled),
      // unless this worker stopped it to shut down and the job's next attempt will resume it.
      const handedOver = !finished && ctx.signal.aborted && ctx.handingOver?.() === true;
      if (!handedOver) await this.client.remove(created.id);
    }
  }

  discard(upstreamId: string): Promise<void> {
    return this.client.remove(upstreamId);
  }

  private async create(
    req: VideoRequest,
    image: { bytes: Buffer; contentType: string } | undefined,
    ctx: VideoRunContext,
    signal: () => AbortSignal,
  ): Promise<UpstreamVideo> {
    const created = await this.guard(ctx, () =>
      this.client.create(
        {
          model: this.options.model,
          prompt: req.prompt,
          seconds: String(Math.max(1, Math.round(req.durationSeconds))),
          size: `${req.width}x${req.height}`,
          image,
        },
        signal(),
      ),
    );
    // Kept with the job for a later attempt; a failure to keep it only costs that resumption.
    await Promise.resolve(ctx.started?.(created.id)).catch(() => undefined);
    return created;
  }

  /**
   * The upstream job an earlier attempt started, when the server still has it and it has not
   * failed; otherwise undefined (what is left of it is deleted) and the video is started again.
   */
  private async resumed(id: string, ctx: VideoRunContext, signal: () => AbortSignal): Promise<UpstreamVideo | undefined> {
    const job = await this.guard(ctx, () => this.client.retrieve(id, signal())).catch((err: unknown) => {
      if (ctx.signal.aborted) throw err;
      return undefined;
    });
    if (job && job.status !== 'failed') return job;
    await this.client.remove(id);
    return undefined;
  }

  private async waitFor(job: UpstreamVideo, deadline: number, ctx: VideoRunContext, signal: () => AbortSignal): Promise<void> {
    let interval = this.options.pollMinMs ?? 500;
    let failures = 0;
    for (;;) {
      if (job.status === 'completed') return;
      if (job.status === 'failed') throw this.failed(job);
      ctx.progress(0.95 * (Math.min(100, Math.max(0, job.progress ?? 0)) / 100));
      if (Date.now() + interval > deadline)
        throw new DomainError(ErrorCode.Timeout, `The video server did not finish the video within ${Math.round(this.options.timeoutMs / 1000)} seconds.`);
      await sleep(interval, undefined, { signal: ctx.signal }).catch(() => undefined);
      if (ctx.signal.aborted) throw cancelled();
      interval = Math.min(this.options.pollMaxMs ?? 5_000, interval * 1.5);
      try {
        job = await this.guard(ctx, () => this.client.retrieve(job.id, signal()));
        failures = 0;
      } catch (err) {
        const transient =
          err instanceof DomainError && [ErrorCode.Upstream, ErrorCode.ServiceUnavailable, ErrorCode.Timeout, ErrorCode.RateLimited].includes(err.code);
        if (!transient || ctx.signal.aborted || ++failures >= MAX_POLL_FAILURES) throw err;
      }
    }
  }

  /** A failed job: a refused prompt is the caller's 400; anything else is the server's failure (502). */
  private failed(job: UpstreamVideo): DomainError {
    const code = job.error?.code ?? '';
    const said = this.errors.scrub(job.error?.message ?? '');
    if (/moderation|policy|safety|invalid/i.test(code)) return new DomainError(ErrorCode.Validation, `The video server refused the request: ${said || code}`);
    return new DomainError(ErrorCode.Upstream, `The video server failed to make the video${code ? ` (${this.errors.scrub(code)})` : ''}.`);
  }

  /** Runs one upstream call; when the job was cancelled meanwhile, says so instead of the call's abort error. */
  private async guard<T>(ctx: VideoRunContext, call: () => Promise<T>): Promise<T> {
    if (ctx.signal.aborted) throw cancelled();
    try {
      return await call();
    } catch (err) {
      if (ctx.signal.aborted) throw cancelled();
      throw err;
    }
  }
}
