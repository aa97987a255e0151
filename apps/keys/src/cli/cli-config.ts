import { z } from 'zod';
import { loadConfig, natsUrl, postgresUrl } from '@svc/config';

export const cliConfigSchema = z.object({ KEYS_DATABASE_URL: postgresUrl('svc_keys'), NATS_URL: natsUrl });
export type CliConfig = z.infer<typeof cliConfigSchema>;
export const loadCliConfig = (env: NodeJS.ProcessEnv = process.env): CliConfig => loadConfig('svc', cliConfigSchema, env);
