import path from 'node:path';
import { z } from 'zod';
import { commonEnv, loadConfig, positiveInt, REPO_ROOT } from '@svc/config';

export const chatConfigSchema = z.object({
  ...commonEnv,
  /** Directory holding GGUF files named by the catalog's embedded models. */
  SVC_MODELS_DIR: z.string().default(path.join(REPO_ROOT, 'models')),
  SVC_CATALOG_PATH: z.string().optional(),
  STREAM_HEARTBEAT_MS: positiveInt(1_000),
  STREAM_ACK_TIMEOUT_MS: positiveInt(30_000),
  /** CPU threads per embedded model; 0 lets the engine decide. */
  LLAMA_THREADS: z.coerce.number().int().nonnegative().default(0),
});
export type ChatConfig = z.infer<typeof chatConfigSchema>;
export const loadChatConfig = (): ChatConfig => loadConfig('chat', chatConfigSchema);
export const CHAT_CONFIG = Symbol('CHAT_CONFIG');
