import { randomUUID } from 'node:crypto';
import { InjectQueue } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Job, Queue, Worker } from 'bullmq';
import { BlobStore, MAX_BLOB_BYTES } from '@svc/blob-store';
import { Catalog } from '@svc/catalog';
import { AudioJobRef, CompleteAudioReply, QueueAudioReply, QueueAudioRequest, RetrieveAudioReply, RetrieveAudioRequest } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { isFinalAttempt, JOB_CONNECTIONS, JobConnections, retriedJobOptions, startJobWorker } from '@svc/jobs';
import { Logger } from '@svc/logging';
import { gaugeSource } from '@svc/messaging';
import { BillingSettler } from '@svc/billing-client';
import { AudioPayloads } from '../audio-payloads';
import { modelOfType } from '../audio-models';
import { AUDIO_CONFIG, AudioConfig } from '../config';
import { AudioEngineRegistry } from '../engines/engine-registry';
import { SPEECH_FORMATS } from '../engines/ffmpeg/audio-formats';
import { AUDIO_LOGGER, BLOB_STORE, CATALOG } from '../tokens';
import { upstreamVoice } from '../voices/voice-cloning';
import { AUDIO_QUEUE_NAME, AudioJobData, AudioJobResult } from './audio-job.types';

/** Until jobs have finished here, the estimate of synthesis time per character. */
const DEFAULT_MS_PER_CHAR = 15;

/**
 * Asynchronous speech jobs on BullMQ (Redis). Each service process runs a worker (concurrency 1
 * by default). A job is retried with exponential backoff; a job whose worker died is taken over
 * when its lock expires (stalled-job recovery). Billing: the gateway held the worst case at queue
 * time; the job settles it exactly once, with the characters on success or nothing on final
 * failure (BillingSettler; settling is idempotent in billing). The queue and the Redis connections
 * are providers of JobsModule (@svc/jobs); the worker is this service's own.
 */
@Injectable()
export class AudioJobsService implements OnModuleInit, BeforeApplicationShutdown {
  private worker: Worker<AudioJobData, AudioJobResult> | null = null;
  private unwatchQueue?: () => void;
  private msPerChar = DEFAULT_MS_PER_CHAR;

  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly engines: AudioEngineRegistry,
    private readonly payloads: AudioPayloads,
    private readonly billing: BillingSettler,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(AUDIO_CONFIG) private readonly config: AudioConfig,
    @Inject(AUDIO_LOGGER) private readonly logger: Logger,
    @InjectQueue(AUDIO_QUEUE_NAME) private readonly queue: Queue<AudioJobData, AudioJobResult>,
    @Inject(JOB_CONNECTIONS) private readonly connections: JobConnections,
  ) {}

  onModuleInit(): void {
    // The queue's sizes as metrics (docs/operations.md, "Metrics"): one Redis call per scrape.
    this.unwatchQueue = gaugeSource(
      'svc_bullmq_jobs',
      'Jobs in a BullMQ queue by state (waiting, active, delayed, failed, completed, prioritized).',
      ['queue', 'state'],
      async () => {
        const counts = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized');
        return Object.entries(counts).map(([state, value]) => ({ labels: { queue: AUDIO_QUEUE_NAME, state }, value }));
      },
    );
    if (!this.config.AUDIO_JOBS_WORKER) return;
    const worker = startJobWorker<AudioJobData, AudioJobResult>(
      AUDIO_QUEUE_NAME,
      (job) => this.process(job),
      this.connections,
      {
        prefix: this.config.AUDIO_QUEUE_PREFIX,
        concurrency: this.config.AUDIO_JOB_CONCURRENCY,
        lockMs: this.config.AUDIO_JOB_LOCK_MS,
        stalledIntervalMs: this.config.AUDIO_JOB_STALLED_INTERVAL_MS,
      },
      { logger: this.logger, label: 'audio job', onFailed: (job, err) => this.onFailed(job, err) },
    );
    this.worker = worker;
  }

  /** Before the queue and its connections close (JobsModule, at application shutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    this.unwatchQueue?.();
    await this.worker?.close().catch(() => undefined);
  }

  async enqueue({ caller, params, billing }: QueueAudioRequest): Promise<QueueAudioReply> {
    const model = modelOfType(this.catalog, params.model, 'tts');
    this.engines.speechEngine(model); // 503 now rather than a failed job later
    const queueId = randomUUID();
    const data: AudioJobData = {
      accountId: caller.accountId,
      requestId: caller.requestId,
      params: { ...params, model: model.id },
      billing,
      characters: [...params.prompt].length,
    };
    const c = this.config;
    await this.queue.add('speech', data, retriedJobOptions(queueId, c.AUDIO_JOB_ATTEMPTS, c.AUDIO_JOB_BACKOFF_MS, c.AUDIO_JOB_RESULT_TTL_MS));
    this.logger.info({ requestId: caller.requestId, queueId, model: model.id, characters: data.characters }, 'audio job queued');
    return { model: model.id, queue_id: queueId, status: 'QUEUED' };
  }

  async retrieve(request: RetrieveAudioRequest): Promise<RetrieveAudioReply> {
    const job = await this.ownedJob(request);
    const state = await job.getState();
    if (state === 'completed') {
      const result = await this.resultOf(job);
      const audio = request.deleteMediaOnCompletion ? await this.blobs.take(result.blobId) : await this.blobs.get(result.blobId);
      if (!audio) throw new DomainError(ErrorCode.NotFound, 'The audio of this job was deleted or has expired.');
      if (request.deleteMediaOnCompletion) await job.remove().catch(() => undefined);
      return { status: 'COMPLETED', contentType: result.contentType, audio: await this.payloads.pack(audio) };
    }
    if (state === 'failed') return { status: 'FAILED', error: 'audio generation failed after retries' };
    const started = job.processedOn ?? job.timestamp;
    return {
      status: 'PROCESSING',
      average_execution_time: Math.round(job.data.characters * this.msPerChar),
      execution_duration: Math.max(0, Date.now() - started),
      progress: typeof job.progress === 'number' ? job.progress : 0,
    };
  }

  /** Deletes the job and its audio (privacy): what a client calls once it has the audio. */
  async complete(request: AudioJobRef): Promise<CompleteAudioReply> {
    const job = await this.ownedJob(request);
    const state = await job.getState();
    if (state === 'active') return { success: false };
    if (state === 'completed') await this.blobs.delete((await this.resultOf(job)).blobId).catch(() => undefined);
    try {
      await job.remove();
    } catch {
      return { success: false };
    }
    return { success: true };
  }

  /** The result of a completed job; a job read just before it completed is read again (its snapshot has none). */
  private async resultOf(job: Job<AudioJobData, AudioJobResult>): Promise<AudioJobResult> {
    if (job.returnvalue) return job.returnvalue;
    const fresh = (await this.queue.getJob(job.id!)) as Job<AudioJobData, AudioJobResult> | undefined;
    if (!fresh?.returnvalue) throw new DomainError(ErrorCode.NotFound, 'The audio of this job was deleted or has expired.');
    return fresh.returnvalue;
  }

  private async ownedJob(ref: AudioJobRef): Promise<Job<AudioJobData, AudioJobResult>> {
    const job = (await this.queue.getJob(ref.queueId)) as Job<AudioJobData, AudioJobResult> | undefined;
    // Another account's job is reported exactly like a missing one.
    if (!job || job.data.accountId !== ref.caller.accountId || job.data.params.model !== ref.model) {
      throw new DomainError(ErrorCode.NotFound, `No audio job ${ref.queueId} for model ${ref.model}.`);
    }
    return job;
  }

  private async process(job: Job<AudioJobData, AudioJobResult>): Promise<AudioJobResult> {
    const { params, requestId } = job.data;
    const started = Date.now();
    const engine = this.engines.speechEngine(modelOfType(this.catalog, params.model, 'tts'));
    this.logger.info({ requestId, queueId: job.id, attempt: job.attemptsMade + 1 }, 'audio job started');
    const result = await engine.speak({
      input: params.prompt,
      voice: upstreamVoice(params.voice, job.data.accountId),
      format: params.response_format,
      speed: params.speed,
      language: params.language,
      signal: AbortSignal.timeout(Math.max(this.config.AUDIO_REQUEST_TIMEOUT_MS, job.data.characters * 200)),
      onProgress: (done, total) => void job.updateProgress(Math.round((done / total) * 100)).catch(() => undefined),
    });
    if (result.audio.length > MAX_BLOB_BYTES) throw new Error(`the audio is ${result.audio.length} bytes, over the ${MAX_BLOB_BYTES}-byte result limit`);
    const blob = await this.blobs.put(result.audio, this.config.AUDIO_JOB_RESULT_TTL_MS);
    const executionMs = Date.now() - started;
    this.msPerChar = 0.8 * this.msPerChar + 0.2 * (executionMs / Math.max(1, result.characters));
    this.billing.settle(job.data.billing, requestId, 'completed', { kind: 'tts', characters: result.characters }, executionMs);
    // The text is not kept once it has been read out.
    await job.updateData({ ...job.data, params: { ...params, prompt: '' } });
    this.logger.info({ requestId, queueId: job.id, characters: result.characters, bytes: blob.bytes, ms: executionMs }, 'audio job completed');
    return {
      blobId: blob.blobId,
      bytes: blob.bytes,
      contentType: SPEECH_FORMATS[params.response_format].contentType,
      characters: result.characters,
      executionMs,
    };
  }

  /** Called after each failed attempt; the hold is released only when no attempt is left. */
  private async onFailed(job: Job<AudioJobData, AudioJobResult>, err: Error): Promise<void> {
    const final = isFinalAttempt(job, err);
    this.logger.warn({ requestId: job.data.requestId, queueId: job.id, attempt: job.attemptsMade, final, err: err.message }, 'audio job attempt failed');
    if (!final) return;
    this.billing.settle(job.data.billing, job.data.requestId, 'failed', null);
    await job.updateData({ ...job.data, params: { ...job.data.params, prompt: '' } }).catch(() => undefined);
  }
}
