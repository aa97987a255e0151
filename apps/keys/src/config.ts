import { z } from 'zod';
import { commonEnv, loadConfig, positiveInt, postgresUrl } from '@svc/config';

export const MIN_ADMIN_KEY_LENGTH = 20;

export const keysConfigSchema = z.object({
  ...commonEnv,
  KEYS_DATABASE_URL: postgresUrl('svc_keys'),
  KEYS_DB_POOL_MAX: positiveInt(10),
  /** Apply pending migrations at boot (harmless when `npm run migrate` already did). */
  KEYS_MIGRATE_ON_BOOT: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** How often lastUsedAt updates from `keys.evt.used.v1` are written, in milliseconds. */
  KEYS_USED_FLUSH_MS: positiveInt(2_000),
  /** When set, an ADMIN key with exactly this secret is ensured at boot (account `bootstrap`). */
  SVC_ADMIN_KEY: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.string().min(MIN_ADMIN_KEY_LENGTH, `must be at least ${MIN_ADMIN_KEY_LENGTH} characters (generate one with: openssl rand -base64 32)`).optional(),
  ),
});

export type KeysConfig = z.infer<typeof keysConfigSchema>;
export const loadServiceConfig = (env: NodeJS.ProcessEnv = process.env): KeysConfig => loadConfig('keys', keysConfigSchema, env);

/** Injection token for the validated config. */
export const KEYS_CONFIG = Symbol('KEYS_CONFIG');
