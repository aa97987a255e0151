import { z } from 'zod';
import { commonEnv, loadConfig, positiveInt, redisUrl } from '@svc/config';
import { defaultConcurrency } from './engines/process-slots';

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
  /**
   * Child processes (ffprobe/ffmpeg, and recognisers, each kind its own pool) run at once; the
   * rest wait their turn. Default: the number of CPUs, at least 2.
   */
  AUDIO_PROCESS_CONCURRENCY: positiveInt(defaultConcurrency()),
  /** How long audio handed over through the blob store waits to be taken. */
  AUDIO_BLOB_TTL_MS: positiveInt(5 * 60_000),
  STREAM_HEARTBEAT_MS: positiveInt(1_000),
  STREAM_ACK_TIMEOUT_MS: positiveInt(30_000),
  /** Asynchronous jobs (POST /audio/queue): run a worker in this process. */
  AUDIO_JOBS_WORKER: bool(true),
  /** The deployment's Redis key prefix (shared with the gateway): separate deployments on one Redis never share jobs. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{0,64}$/, 'letters, digits and : _ . - only, at most 64')
    .default('svc:'),
  /** BullMQ key prefix; default `<REDIS_KEY_PREFIX>audio-jobs`. */
  AUDIO_QUEUE_PREFIX: z.string().min(1).optional(),
  AUDIO_JOB_CONCURRENCY: positiveInt(1),
  AUDIO_JOB_ATTEMPTS: positiveInt(3),
  AUDIO_JOB_BACKOFF_MS: positiveInt(2_000),
  /** A job whose worker stopped renewing its lock for this long is taken over by another worker. */
  AUDIO_JOB_LOCK_MS: positiveInt(30_000),
  AUDIO_JOB_STALLED_INTERVAL_MS: positiveInt(15_000),
  /** Generated audio of a finished job is kept this long unless retrieved or completed first. */
  AUDIO_JOB_RESULT_TTL_MS: positiveInt(60 * 60_000),
});
export type AudioConfig = Omit<z.infer<typeof audioConfigSchema>, 'AUDIO_QUEUE_PREFIX'> & { AUDIO_QUEUE_PREFIX: string };
export const loadServiceConfig = (): AudioConfig => {
  const config = loadConfig('audio', audioConfigSchema);
  return { ...config, AUDIO_QUEUE_PREFIX: config.AUDIO_QUEUE_PREFIX ?? `${config.REDIS_KEY_PREFIX}audio-jobs` };
};
export const AUDIO_CONFIG = Symbol('AUDIO_CONFIG');
