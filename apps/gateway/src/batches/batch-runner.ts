import { InjectQueue } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import { isFinalAttempt, JOB_CONNECTIONS, JobConnections, retriedJobOptions, startJobWorker } from '@svc/jobs';
import { Logger } from '@svc/logging';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { GATEWAY_LOGGER } from '../logger.token';
import { parseBatchInput } from './batch-input';
import { BatchLineRunner } from './batch-line-runner';
import { endStatus, isSuccess, isTerminal, notRunLine } from './batch-object';
import { runInLanes } from './batch-lanes';
import { BatchStore } from './batch-store';
import { BATCH_CONFIG, BatchConfig } from './batch.config';
import { BatchLine, BatchOutputLine, BatchStatus, StoredBatch } from './batch.types';
import { lineRequestId, newFileId } from './batch-ids';

export const BATCH_QUEUE = 'batches';
export interface BatchJobData {
  batchId: string;
}

const JOB_ATTEMPTS = 3;
const JOB_BACKOFF_MS = 5_000;
const ACTIVE: readonly BatchStatus[] = ['validating', 'in_progress', 'finalizing', 'cancelling'];

/**
 * Runs batches: one BullMQ job per batch, its lines through BatchLineRunner, BATCH_LINE_CONCURRENCY
 * at once, each finished line recorded once (a job taken over after a crash skips them), then the
 * output and error files in input order, the terminal status, and the input file deleted. Cancel
 * and the completion window are checked before every line starts. docs/batches.md.
 */
@Injectable()
export class BatchRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private worker?: Worker<BatchJobData, void>;

  constructor(
    @InjectQueue(BATCH_QUEUE) private readonly queue: Queue<BatchJobData, void>,
    @Inject(JOB_CONNECTIONS) private readonly connections: JobConnections,
    private readonly store: BatchStore,
    private readonly lines: BatchLineRunner,
    @Inject(BATCH_CONFIG) private readonly config: BatchConfig,
    @Inject(GATEWAY_CONFIG) private readonly gateway: GatewayConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.BATCH_WORKER) return;
    this.worker = startJobWorker<BatchJobData, void>(
      BATCH_QUEUE,
      (job) => this.run(job.data.batchId),
      this.connections,
      {
        prefix: batchQueuePrefix(this.gateway),
        concurrency: this.config.BATCH_CONCURRENCY,
        lockMs: this.config.BATCH_JOB_LOCK_MS,
        stalledIntervalMs: Math.ceil(this.config.BATCH_JOB_LOCK_MS / 2),
      },
      {
        logger: this.logger,
        label: 'batch job',
        onFailed: async (job, err) => {
          this.logger.warn({ batchId: job.data.batchId, err: err.message }, 'batch job attempt failed');
          if (isFinalAttempt(job, err)) await this.failBatch(job.data.batchId, 'batch_failed', 'The batch could not be run.').catch(() => undefined);
        },
      },
    );
    this.logger.info(
      { pid: process.pid, concurrency: this.config.BATCH_CONCURRENCY, lineConcurrency: this.config.BATCH_LINE_CONCURRENCY },
      'batch worker ready',
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
  }

  async enqueue(batchId: string): Promise<void> {
    await this.queue.add('run', { batchId }, retriedJobOptions(batchId, JOB_ATTEMPTS, JOB_BACKOFF_MS, this.config.BATCH_FILE_TTL_MS));
  }

  /** Runs (or, after a restart, resumes) one batch to its terminal status. */
  async run(batchId: string): Promise<void> {
    const batch = await this.store.batch(batchId);
    if (!batch) return;
    // Ended, by a worker that may have died before it deleted the input and the finished lines.
    if (isTerminal(batch.status)) return this.dropRunState(batch);
    await this.store.moveStatus(batchId, ['validating'], 'in_progress');
    const input = await this.store.file(batch.key.accountId, batch.inputFileId);
    const content = input && (await this.store.content(input));
    if (!content) return this.failBatch(batchId, 'input_file_missing', 'The input file expired or was deleted before the batch ran.');
    const lines = parseBatchInput(content.toString('utf8'), batch.endpoint, Number.MAX_SAFE_INTEGER);
    const done = await this.store.results(batchId);
    const keepMs = Math.max(batch.expiresAt - Date.now(), 0) + this.config.BATCH_FILE_TTL_MS;
    const todo = lines.filter((line) => !done.has(line.index));
    const stopReason = async () => {
      if ((await this.store.batch(batchId))?.status === 'cancelling') return 'cancelled' as const;
      return Date.now() >= batch.expiresAt ? ('expired' as const) : undefined;
    };
    const stop = await runInLanes(todo, this.config.BATCH_LINE_CONCURRENCY, stopReason, async (line) => {
      const result = await this.lines.run(batch, line);
      await this.store.recordLine(batchId, line.index, result, isSuccess(result), keepMs);
    });
    await this.finalize(batch, lines, stop ?? 'done');
  }

  private async finalize(batch: StoredBatch, lines: BatchLine[], stop: 'done' | 'cancelled' | 'expired'): Promise<void> {
    if (stop === 'done') await this.store.moveStatus(batch.id, ['in_progress'], 'finalizing');
    const results = await this.store.results(batch.id);
    const output: BatchOutputLine[] = [];
    const errors: BatchOutputLine[] = [];
    for (const line of lines) {
      const result =
        results.get(line.index) ?? notRunLine(lineRequestId(batch.id, line.index), line.customId, stop === 'expired' ? 'batch_expired' : 'batch_cancelled');
      (isSuccess(result) ? output : errors).push(result);
    }
    const [outputFileId, errorFileId] = await Promise.all([this.writeFile(batch, output, 'output'), this.writeFile(batch, errors, 'error')]);
    // Files and status in one step: a worker that lost the batch to another (its lock lapsed while
    // it ran) finds it ended, and deletes what it wrote instead of replacing the winner's files.
    if (!(await this.store.moveStatus(batch.id, ACTIVE, endStatus(stop), { outputFileId, errorFileId }))) {
      await Promise.all([outputFileId, errorFileId].map((id) => this.dropFile(batch, id)));
      return;
    }
    await this.dropRunState(batch);
  }

  private async writeFile(batch: StoredBatch, lines: BatchOutputLine[], kind: 'output' | 'error'): Promise<string | undefined> {
    if (lines.length === 0) return undefined;
    const content = Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const now = Date.now();
    const file = await this.store.putFile(
      {
        id: newFileId(),
        accountId: batch.key.accountId,
        purpose: 'batch_output',
        filename: `${batch.id}_${kind}.jsonl`,
        bytes: content.length,
        createdAt: now,
        expiresAt: now + this.config.BATCH_FILE_TTL_MS,
      },
      content,
    );
    return file.id;
  }

  private async failBatch(batchId: string, code: string, message: string): Promise<void> {
    const batch = await this.store.batch(batchId);
    if (!batch || isTerminal(batch.status)) return;
    if (!(await this.store.moveStatus(batchId, ACTIVE, 'failed', { error: JSON.stringify({ code, message }) }))) return;
    await this.dropRunState(batch);
  }

  /** A batch's input is deleted when the batch ends (its requests are private), and so are its finished lines. */
  private async dropRunState(batch: StoredBatch): Promise<void> {
    await this.dropFile(batch, batch.inputFileId);
    await this.store.dropResults(batch.id);
  }

  private async dropFile(batch: StoredBatch, id: string | undefined): Promise<void> {
    const file = id && (await this.store.file(batch.key.accountId, id));
    if (file) await this.store.deleteFile(file);
  }
}

export const batchQueuePrefix = (config: Pick<GatewayConfig, 'REDIS_KEY_PREFIX'>): string => `${config.REDIS_KEY_PREFIX}batch-jobs`;
