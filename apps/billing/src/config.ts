import { z } from 'zod';
import { commonEnv, loadConfig } from '@svc/config';

export const billingConfigSchema = z.object({ ...commonEnv });
export type BillingConfig = z.infer<typeof billingConfigSchema>;
export const loadServiceConfig = (): BillingConfig => loadConfig('billing', billingConfigSchema);
