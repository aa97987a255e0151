import { z } from 'zod';
import { positiveInt } from '@svc/config';

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

/** The media service's video job variables (spread into its config schema; see .env.example). */
export const videoEnv = {
  /** Run a video job worker in this process. */
  VIDEO_JOBS_WORKER: bool(true),
  /** The deployment's Redis key prefix (shared with the gateway): separate deployments on one Redis never share jobs. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{0,64}$/, 'letters, digits and : _ . - only, at most 64')
    .default('svc:'),
  /** BullMQ key prefix; default `<REDIS_KEY_PREFIX>video-jobs`. */
  VIDEO_QUEUE_PREFIX: z.string().min(1).optional(),
  VIDEO_JOB_CONCURRENCY: positiveInt(1),
  VIDEO_JOB_ATTEMPTS: positiveInt(2),
  VIDEO_JOB_BACKOFF_MS: positiveInt(2_000),
  /** A job whose worker stopped renewing its lock for this long is taken over by another worker. */
  VIDEO_JOB_LOCK_MS: positiveInt(30_000),
  VIDEO_JOB_STALLED_INTERVAL_MS: positiveInt(15_000),
  /** Longest one attempt may run. */
  VIDEO_JOB_TIMEOUT_MS: positiveInt(30 * 60_000),
  /** A finished video is kept this long unless retrieved (with delete) or completed first; 24 h for models with a download URL. */
  VIDEO_JOB_RESULT_TTL_MS: positiveInt(60 * 60_000),
};

export interface VideoConfig {
  VIDEO_JOBS_WORKER: boolean;
  REDIS_URL: string;
  VIDEO_QUEUE_PREFIX: string;
  VIDEO_JOB_CONCURRENCY: number;
  VIDEO_JOB_ATTEMPTS: number;
  VIDEO_JOB_BACKOFF_MS: number;
  VIDEO_JOB_LOCK_MS: number;
  VIDEO_JOB_STALLED_INTERVAL_MS: number;
  VIDEO_JOB_TIMEOUT_MS: number;
  VIDEO_JOB_RESULT_TTL_MS: number;
}

/** Download URLs are valid 24 h (the spec), so their videos are kept that long. */
export const DOWNLOAD_TTL_MS = 24 * 60 * 60_000;

export const VIDEO_CONFIG = Symbol('VIDEO_CONFIG');
