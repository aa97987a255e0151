import path from 'node:path';
import { z } from 'zod';
import { commonEnv, loadConfig, positiveInt, postgresUrl, redisUrl, REPO_ROOT } from '@svc/config';
import { augmentEnv } from './augment/augment.config';

/** Short on purpose: the bundled demo model has a 256-token context. */
export const DEFAULT_SYSTEM_PROMPT =
  'You are a private, uncensored assistant. Answer directly and naturally, without moralizing or lecturing. If you do not know, say so.';

export const chatConfigSchema = z.object({
  ...commonEnv,
  /** The chat service's own database (characters); created and migrated at boot when missing. */
  CHAT_DATABASE_URL: postgresUrl('svc_chat'),
  CHAT_DB_POOL_MAX: positiveInt(5),
  CHAT_MIGRATE_ON_BOOT: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Create the shipped public characters at boot when their slugs are missing. */
  CHAT_SEED_CHARACTERS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** The deployment's default system prompt, put before the caller's (docs/chat.md); empty for none. */
  SVC_SYSTEM_PROMPT: z.string().default(DEFAULT_SYSTEM_PROMPT),
  /** Added to the system prompt when `disable_thinking` is set on a model with supportsReasoning. */
  SVC_NO_THINK_INSTRUCTION: z.string().default('/no_think'),
  /** Directory holding GGUF files named by the catalog's embedded models. */
  SVC_MODELS_DIR: z.string().default(path.join(REPO_ROOT, 'models')),
  SVC_CATALOG_PATH: z.string().optional(),
  STREAM_HEARTBEAT_MS: positiveInt(1_000),
  STREAM_ACK_TIMEOUT_MS: positiveInt(30_000),
  /** CPU threads per embedded model; 0 lets the engine decide. */
  LLAMA_THREADS: z.coerce.number().int().nonnegative().default(0),
  /** Redis for payloads too large for NATS (large embedding batches); connected on first use only. */
  REDIS_URL: redisUrl,
  /** Web search, scraping and document parsing (docs/retrieval.md). */
  ...augmentEnv,
});
export type ChatConfig = z.infer<typeof chatConfigSchema>;
export const loadChatConfig = (): ChatConfig => loadConfig('chat', chatConfigSchema);
export const CHAT_CONFIG = Symbol('CHAT_CONFIG');
