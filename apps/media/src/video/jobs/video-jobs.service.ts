import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InjectQueue } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Job, Queue, Worker } from 'bullmq';
import { BlobStore, MAX_BLOB_BYTES, unpackInlineOrBlob } from '@svc/blob-store';
import {
  CompleteVideoReply,
  DownloadVideoReply,
  DownloadVideoRequest,
  QueueVideoReply,
  QueueVideoRequest,
  RetrieveVideoReply,
  RetrieveVideoRequest,
  VideoBlob,
  VideoJobRef,
} from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { failedJobMessage, finalIfRefused, isFinalAttempt, JOB_CONNECTIONS, JobConnections, retriedJobOptions, startJobWorker } from '@svc/jobs';
import { Logger } from '@svc/logging';
import { BillingSettler } from '@svc/billing-client';
import { BLOB_STORE, MEDIA_LOGGER } from '../../images/tokens';
import { VideoEngineRegistry } from '../engines/video-engine.registry';
import { DOWNLOAD_TTL_MS, VIDEO_CONFIG, VideoConfig } from '../video.config';
import { VIDEO_QUEUE_NAME, VideoJobData, VideoJobResult } from './video-job.types';

/** Until jobs have finished here, the estimate of processing time per second of video. */
const DEFAULT_MS_PER_SECOND = 2_000;

/**
 * Video jobs on BullMQ (Redis), as the audio jobs: a worker in every media process (concurrency
 * VIDEO_JOB_CONCURRENCY), retries with exponential backoff, a job whose worker died taken over
 * when its lock expires. Billing: the gateway held the job's quote at queue time; the job settles
 * it exactly once, with that usage on success or nothing after the last failed attempt
 * (BillingSettler; settling is idempotent in billing). Privacy: inputs are deleted and the prompt
 * blanked when the job ends; the result blob expires with its TTL and is deleted by `complete`.
 */
@Injectable()
export class VideoJobsService implements OnModuleInit, BeforeApplicationShutdown {
  private worker: Worker<VideoJobData, VideoJobResult> | null = null;
  private readonly running = new Map<string, AbortController>();
  /** Set at shutdown: running jobs are handed over to another worker, which resumes their upstream work. */
  private stopping = false;
  private msPerSecond = DEFAULT_MS_PER_SECOND;

  constructor(
    private readonly engines: VideoEngineRegistry,
    private readonly billing: BillingSettler,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(VIDEO_CONFIG) private readonly config: VideoConfig,
    @Inject(MEDIA_LOGGER) private readonly logger: Logger,
    @InjectQueue(VIDEO_QUEUE_NAME) private readonly queue: Queue<VideoJobData, VideoJobResult>,
    @Inject(JOB_CONNECTIONS) private readonly connections: JobConnections,
  ) {}

  onModuleInit(): void {
    if (!this.config.VIDEO_JOBS_WORKER) return;
    const worker = startJobWorker<VideoJobData, VideoJobResult>(
      VIDEO_QUEUE_NAME,
      (job) => this.process(job),
      this.connections,
      {
        prefix: this.config.VIDEO_QUEUE_PREFIX,
        concurrency: this.config.VIDEO_JOB_CONCURRENCY,
        lockMs: this.config.VIDEO_JOB_LOCK_MS,
        stalledIntervalMs: this.config.VIDEO_JOB_STALLED_INTERVAL_MS,
      },
      { logger: this.logger, label: 'video job', onFailed: (job, err) => this.onFailed(job, err) },
    );
    this.worker = worker;
  }

  /** Running engines stop (their ffmpeg is killed); the jobs are taken over by another worker. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    for (const controller of this.running.values()) controller.abort();
    await this.worker?.close().catch(() => undefined);
  }

  async enqueue({ caller, job, usage, billing, storeOutput }: QueueVideoRequest): Promise<QueueVideoReply> {
    this.engines.engineFor(job.model); // 503 now rather than a failed job later
    const queueId = randomUUID();
    const data: VideoJobData = { accountId: caller.accountId, requestId: caller.requestId, job, usage, billing, storeOutput };
    const c = this.config;
    await this.queue.add('video', data, retriedJobOptions(queueId, c.VIDEO_JOB_ATTEMPTS, c.VIDEO_JOB_BACKOFF_MS, this.resultTtl(storeOutput)));
    this.logger.info({ requestId: caller.requestId, queueId, model: job.model, seconds: job.durationSeconds }, 'video job queued');
    return { model: job.model, queue_id: queueId };
  }

  async retrieve(request: RetrieveVideoRequest): Promise<RetrieveVideoReply> {
    const job = await this.ownedJob(request);
    const state = await job.getState();
    if (state === 'completed') {
      const result = await this.resultOf(job);
      return { status: 'COMPLETED', contentType: result.contentType, video: result.video };
    }
    if (state === 'failed') return { status: 'FAILED', error: failedJobMessage(job.failedReason, 'video generation failed after retries') };
    const started = job.processedOn ?? job.timestamp;
    return {
      status: 'PROCESSING',
      average_execution_time: Math.round(job.data.job.durationSeconds * this.msPerSecond),
      execution_duration: Math.max(0, Date.now() - started),
      progress: typeof job.progress === 'number' ? job.progress : 0,
    };
  }

  /** Deletes the job and its video (privacy): what a client calls once it has the video. */
  async complete(request: VideoJobRef): Promise<CompleteVideoReply> {
    const job = await this.ownedJob(request);
    const state = await job.getState();
    if (state === 'active') return { success: false };
    if (state === 'completed') await this.blobs.delete((await this.resultOf(job)).video.blobId).catch(() => undefined);
    await this.deleteInputs(job);
    try {
      await job.remove();
    } catch {
      return { success: false };
    }
    return { success: true };
  }

  /** The signed download URL's lookup: the gateway checked the signature, so no account is asked for. */
  async download({ queueId }: DownloadVideoRequest): Promise<DownloadVideoReply> {
    const job = (await this.queue.getJob(queueId)) as Job<VideoJobData, VideoJobResult> | undefined;
    if (!job) return { status: 'GONE' };
    const state = await job.getState();
    if (state === 'completed') {
      const result = await this.resultOf(job);
      return { status: 'COMPLETED', contentType: result.contentType, video: result.video };
    }
    return { status: state === 'failed' ? 'GONE' : 'PROCESSING' };
  }

  /** The result of a completed job; a job read just before it completed is read again (its snapshot has none). */
  private async resultOf(job: Job<VideoJobData, VideoJobResult>): Promise<VideoJobResult> {
    if (job.returnvalue) return job.returnvalue;
    const fresh = (await this.queue.getJob(job.id!)) as Job<VideoJobData, VideoJobResult> | undefined;
    if (!fresh?.returnvalue) throw new DomainError(ErrorCode.NotFound, `The video of job ${job.id} was deleted or has expired.`);
    return fresh.returnvalue;
  }

  private async ownedJob(ref: VideoJobRef): Promise<Job<VideoJobData, VideoJobResult>> {
    const job = (await this.queue.getJob(ref.queueId)) as Job<VideoJobData, VideoJobResult> | undefined;
    // Another account's job is reported exactly like a missing one.
    if (!job || job.data.accountId !== ref.caller.accountId || job.data.job.model !== ref.model) {
      throw new DomainError(ErrorCode.NotFound, `No video job ${ref.queueId} for model ${ref.model}.`);
    }
    return job;
  }

  private async process(job: Job<VideoJobData, VideoJobResult>): Promise<VideoJobResult> {
    const { job: spec, requestId } = job.data;
    const started = Date.now();
    const engine = this.engines.engineFor(spec.model);
    this.logger.info({ requestId, queueId: job.id, attempt: job.attemptsMade + 1 }, 'video job started');
    const controller = new AbortController();
    this.running.set(job.id!, controller);
    const workDir = await mkdtemp(path.join(tmpdir(), 'svc-video-'));
    try {
      const [image, video] = await Promise.all([this.input(spec.image), this.input(spec.video)]);
      const result = await engine
        .run(
          { ...spec, image, video },
          {
            signal: AbortSignal.any([controller.signal, AbortSignal.timeout(this.config.VIDEO_JOB_TIMEOUT_MS)]),
            workDir,
            progress: (fraction) => void job.updateProgress(Math.round(fraction * 100)).catch(() => undefined),
            resumeFrom: job.data.upstreamJobId,
            started: (upstreamJobId) => job.updateData({ ...job.data, upstreamJobId }),
            handingOver: () => this.stopping,
          },
        )
        .catch((err: unknown) => {
          throw finalIfRefused(err);
        });
      const bytes = await readFile(result.path);
      if (bytes.length > MAX_BLOB_BYTES) throw new Error(`the video is ${bytes.length} bytes, over the ${MAX_BLOB_BYTES}-byte result limit`);
      const blob = await this.blobs.put(bytes, this.resultTtl(job.data.storeOutput));
      const executionMs = Date.now() - started;
      this.msPerSecond = 0.8 * this.msPerSecond + 0.2 * (executionMs / Math.max(0.1, spec.durationSeconds));
      this.billing.settle(job.data.billing, requestId, 'completed', job.data.usage, executionMs);
      await this.forget(job);
      this.logger.info({ requestId, queueId: job.id, bytes: blob.bytes, seconds: result.durationSeconds, ms: executionMs }, 'video job completed');
      return { video: blob, contentType: result.contentType, durationSeconds: result.durationSeconds, executionMs };
    } finally {
      this.running.delete(job.id!);
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /** Called after each failed attempt; the hold is released only when no attempt is left. */
  private async onFailed(job: Job<VideoJobData, VideoJobResult>, err: Error): Promise<void> {
    const final = isFinalAttempt(job, err);
    this.logger.warn({ requestId: job.data.requestId, queueId: job.id, attempt: job.attemptsMade, final, err: err.message }, 'video job attempt failed');
    if (!final) return;
    this.billing.settle(job.data.billing, job.data.requestId, 'failed', null);
    await this.discardUpstream(job);
    await this.forget(job).catch(() => undefined);
  }

  /** What an upstream still holds for a job that will not run again (an attempt handed over at shutdown keeps it). */
  private async discardUpstream(job: Job<VideoJobData, VideoJobResult>): Promise<void> {
    const id = job.data.upstreamJobId;
    if (!id) return;
    try {
      await this.engines.engineFor(job.data.job.model).discard?.(id);
    } catch {
      // The model left the catalog: nothing to ask.
    }
  }

  private async input(blob: VideoBlob | undefined): Promise<Buffer | undefined> {
    if (!blob) return undefined;
    return unpackInlineOrBlob(this.blobs, blob, { missing: () => new Error('an input of the job expired before the job ran'), keep: true });
  }

  /** The prompt and the inputs are not kept once the job has ended. */
  private async forget(job: Job<VideoJobData, VideoJobResult>): Promise<void> {
    await this.deleteInputs(job);
    await job.updateData({ ...job.data, job: { ...job.data.job, prompt: '', negativePrompt: undefined } });
  }

  private async deleteInputs(job: Job<VideoJobData, VideoJobResult>): Promise<void> {
    const inputs = [job.data.job.image, job.data.job.video].filter((b): b is VideoBlob => b !== undefined);
    await Promise.all(inputs.map((b) => this.blobs.delete(b.blobId).catch(() => false)));
  }

  private resultTtl(storeOutput: boolean): number {
    return storeOutput ? DOWNLOAD_TTL_MS : this.config.VIDEO_JOB_RESULT_TTL_MS;
  }
}
