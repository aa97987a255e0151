import path from 'node:path';
import { z } from 'zod';
import { commonEnv, loadConfig, positiveInt, redisUrl, REPO_ROOT } from '@svc/config';
import { videoEnv, VideoConfig } from './video/video.config';

const probability = z.coerce.number().min(0).max(1);

export const mediaConfigSchema = z.object({
  ...commonEnv,
  /** Directory holding the model files named by the catalog's embedded image models. */
  SVC_MODELS_DIR: z.string().default(path.join(REPO_ROOT, 'models')),
  SVC_CATALOG_PATH: z.string().optional(),
  /** Blob store for input and output images (NATS messages are capped at 1 MB). */
  REDIS_URL: redisUrl,
  /** How long a generated image waits in the blob store for the gateway to take it. */
  IMAGE_BLOB_TTL_MS: positiveInt(120_000),
  /** onnxruntime threads per image model; 0 lets the engine decide. */
  IMAGE_THREADS: z.coerce.number().int().nonnegative().default(0),
  /** Safe mode blurs an output when its adult probability (Porn + Hentai + Sexy) reaches this. 0 blurs everything. */
  SAFE_MODE_NSFW_THRESHOLD: probability.default(0.5),
  /** `nsfwjs` (MobileNetV2 on the tfjs WebAssembly backend), or `off`: then safe mode blurs every output (fail closed). */
  SAFE_MODE_CLASSIFIER: z.enum(['nsfwjs', 'off']).default('nsfwjs'),
  /** Video jobs (docs/video.md). */
  ...videoEnv,
});
export type MediaConfig = Omit<z.infer<typeof mediaConfigSchema>, 'VIDEO_QUEUE_PREFIX'> & VideoConfig;
export const loadServiceConfig = (): MediaConfig => {
  const config = loadConfig('media', mediaConfigSchema);
  return { ...config, VIDEO_QUEUE_PREFIX: config.VIDEO_QUEUE_PREFIX ?? `${config.REDIS_KEY_PREFIX}video-jobs` };
};
export const MEDIA_CONFIG = Symbol('MEDIA_CONFIG');
