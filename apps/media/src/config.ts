import { z } from 'zod';
import { commonEnv, loadConfig } from '@svc/config';

export const mediaConfigSchema = z.object({ ...commonEnv });
export type MediaConfig = z.infer<typeof mediaConfigSchema>;
export const loadServiceConfig = (): MediaConfig => loadConfig('media', mediaConfigSchema);
