import { z } from 'zod';
import { commonEnv, loadConfig } from '@svc/config';

export const walletConfigSchema = z.object({ ...commonEnv });
export type WalletConfig = z.infer<typeof walletConfigSchema>;
export const loadServiceConfig = (): WalletConfig => loadConfig('wallet', walletConfigSchema);
