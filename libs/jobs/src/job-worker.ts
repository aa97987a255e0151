import { Job, JobsOptions, Worker } from 'bullmq';
import { Logger } from '@svc/logging';
import { JobConnections } from './job-connections';
import { isRefusal } from './job-refusal';

/** A service's job worker settings (its `*_JOB_*` variables). */
export interface JobWorkerSettings {
  prefix: string;
  concurrency: number;
  /** A job whose worker stopped renewing its lock for this long is taken over by another worker. */
  lockMs: number;
  stalledIntervalMs: number;
}

/**
 * A BullMQ worker on its own connection, with the platform's stalled-job handling (a job whose
 * worker died is taken over, at most twice) and its events logged under `label` ("audio job").
 * `onFailed` runs after every failed attempt (see `isFinalAttempt`). Close it in
 * `beforeApplicationShutdown`, before the queue and its connections.
 */
export function startJobWorker<D, R>(
  name: string,
  process: (job: Job<D, R>) => Promise<R>,
  connections: JobConnections,
  settings: JobWorkerSettings,
  events: { logger: Logger; label: string; onFailed(job: Job<D, R>, err: Error): Promise<void> },
): Worker<D, R> {
  const worker = new Worker<D, R>(name, process, {
    connection: connections.connect('worker'),
    prefix: settings.prefix,
    concurrency: settings.concurrency,
    lockDuration: settings.lockMs,
    stalledInterval: settings.stalledIntervalMs,
    maxStalledCount: 2,
  });
  worker.on('failed', (job, err) => job && void events.onFailed(job, err));
  worker.on('stalled', (jobId) => events.logger.warn({ jobId }, `${events.label} stalled (its worker stopped); it is retried`));
  worker.on('error', (err) => events.logger.error({ err: err.message }, `${events.label} worker error`));
  return worker;
}

/** A job under a chosen id, retried with exponential backoff, kept `keepMs` after it ends (for retrieval). */
export function retriedJobOptions(jobId: string, attempts: number, backoffMs: number, keepMs: number): JobsOptions {
  const keep = { age: Math.ceil(keepMs / 1000) };
  return { jobId, attempts, backoff: { type: 'exponential', delay: backoffMs }, removeOnComplete: keep, removeOnFail: keep };
}

/** True after the last attempt of a failed job, or a refusal that ends it early (its hold can be released). */
export const isFinalAttempt = (job: Pick<Job, 'attemptsMade' | 'opts'>, err?: Error): boolean =>
  (err !== undefined && isRefusal(err)) || job.attemptsMade >= (job.opts.attempts ?? 1);
