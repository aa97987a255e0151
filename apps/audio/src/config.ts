import { z } from 'zod';
import { commonEnv, loadConfig, positiveInt, redisUrl } from '@svc/config';

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

export const audioConfigSchema = z.object({
  ...commonEnv,
  /** Blob store (audio too large for a NATS message) and the BullMQ job queue. */
  REDIS_URL: redisUrl,
  SVC_CATALOG_PATH: z.string().optional(),
  /** Longest a speech or transcription request may run in the service. */
  AUDIO_REQUEST_TIMEOUT_MS: positiveInt(120_000),
  /** How long audio handed over through the blob store waits to be taken. */
  AUDIO_BLOB_TTL_MS: positiveInt(5 * 60_000),
  STREAM_HEARTBEAT_MS: positiveInt(1_000),
  STREAM_ACK_TIMEOUT_MS: positiveInt(30_000),
  /** Asynchronous jobs (POST /audio/queue): run a worker in this process. */
  AUDIO_JOBS_WORKER: bool(true),
  /** BullMQ key prefix (tests use their own). */
  AUDIO_QUEUE_PREFIX: z.string().min(1).default('svc-audio'),
  AUDIO_JOB_CONCURRENCY: positiveInt(1),
  AUDIO_JOB_ATTEMPTS: positiveInt(3),
  AUDIO_JOB_BACKOFF_MS: positiveInt(2_000),
  /** A job whose worker stopped renewing its lock for this long is taken over by another worker. */
  AUDIO_JOB_LOCK_MS: positiveInt(30_000),
  AUDIO_JOB_STALLED_INTERVAL_MS: positiveInt(15_000),
  /** Generated audio of a finished job is kept this long unless retrieved or completed first. */
  AUDIO_JOB_RESULT_TTL_MS: positiveInt(60 * 60_000),
});
export type AudioConfig = z.infer<typeof audioConfigSchema>;
export const loadServiceConfig = (): AudioConfig => loadConfig('audio', audioConfigSchema);
export const AUDIO_CONFIG = Symbol('AUDIO_CONFIG');
