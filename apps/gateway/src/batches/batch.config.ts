import { z } from 'zod';
import { loadConfig } from '@svc/config';
import { MULTIPART_FILE_LIMIT_BYTES } from '../http/multipart';

/** Each line in flight is a chat-service call and a reservation: past this a batch would crowd out live traffic. */
const MAX_LINE_CONCURRENCY = 64;

const int = (fallback: number, min = 1) => z.coerce.number().int().min(min).default(fallback);

/** The gateway's Files and Batches variables (validated when the batches module starts; see .env.example). */
export const batchEnvSchema = z.object({
  /** Largest `purpose: batch` upload, bytes (413 above it); at most the multipart limit of any upload. */
  BATCH_FILE_MAX_BYTES: int(16 * 1024 * 1024).pipe(z.number().max(MULTIPART_FILE_LIMIT_BYTES)),
  /** Most request lines in one batch input file (400 above it). */
  BATCH_MAX_LINES: int(10_000),
  /** How long an uploaded file, and a batch's output and error files, stay before they are deleted. */
  BATCH_FILE_TTL_MS: int(24 * 60 * 60_000),
  /** Run batch jobs in this gateway process (`false` on replicas that should only serve HTTP). */
  BATCH_WORKER: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Batches run at once by one worker. */
  BATCH_CONCURRENCY: int(2),
  /** Lines of one batch run at once (each admitted, held and settled on its own); a worker has up to BATCH_CONCURRENCY times this many in flight. */
  BATCH_LINE_CONCURRENCY: int(4).pipe(z.number().max(MAX_LINE_CONCURRENCY)),
  /** A batch whose worker stopped renewing its lock this long (the process died) is taken over by another worker. */
  BATCH_JOB_LOCK_MS: int(60_000, 1_000),
});
export type BatchConfig = z.infer<typeof batchEnvSchema>;

export const loadBatchConfig = (env: NodeJS.ProcessEnv = process.env): BatchConfig => loadConfig('gateway', batchEnvSchema, env);

export const BATCH_CONFIG = Symbol('BATCH_CONFIG');
