import { z } from 'zod';
import { commonEnv, loadConfig } from '@svc/config';

export const audioConfigSchema = z.object({ ...commonEnv });
export type AudioConfig = z.infer<typeof audioConfigSchema>;
export const loadServiceConfig = (): AudioConfig => loadConfig('audio', audioConfigSchema);
