import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { loadConfig } from '@svc/config';

/** The gateway's video variables (validated when the video module starts, at boot; see .env.example). */
export const videoGatewayEnvSchema = z.object({
  /**
   * Key of the HMAC that signs `download_url`s. Every gateway replica needs the same one; when
   * unset, each process draws a random key (one replica only: its URLs die with it).
   */
  VIDEO_DOWNLOAD_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Public origin of the API for `download_url` (e.g. `https://api.example.com`); unset: the request's own host. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** Largest input video (`video_url`) fetched or accepted as a data URL, bytes. */
  VIDEO_INPUT_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(50 * 1024 * 1024),
  /** Inputs wait this long in the blob store for their job to run. */
  VIDEO_INPUT_TTL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 60 * 60_000),
});
export type VideoGatewayConfig = Omit<z.infer<typeof videoGatewayEnvSchema>, 'VIDEO_DOWNLOAD_SECRET'> & { downloadSecret: Buffer; secretIsRandom: boolean };

export function loadVideoGatewayConfig(env: NodeJS.ProcessEnv = process.env): VideoGatewayConfig {
  const { VIDEO_DOWNLOAD_SECRET, ...rest } = loadConfig('gateway', videoGatewayEnvSchema, env);
  return { ...rest, downloadSecret: VIDEO_DOWNLOAD_SECRET ? Buffer.from(VIDEO_DOWNLOAD_SECRET) : randomBytes(32), secretIsRandom: !VIDEO_DOWNLOAD_SECRET };
}

export const VIDEO_GATEWAY_CONFIG = Symbol('VIDEO_GATEWAY_CONFIG');
