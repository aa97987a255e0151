import { z } from 'zod';
import { createKeyRequestSchema } from '../keys/schemas';

// Checked on receipt by the wallet service (one schema per message).

/** A SIGN-IN-WITH-X header: a few hundred bytes in practice; 8 KiB leaves room for long statements and resources. */
export const MAX_SIWX_HEADER_LENGTH = 8_192;

export const siwxSignInRequestSchema = z.object({ header: z.string().min(1).max(MAX_SIWX_HEADER_LENGTH) });
export const web3KeyTokenRequestSchema = z.object({}).strict();
export const web3KeyCreateRequestSchema = z.object({
  address: z.string().min(1).max(64),
  signature: z.string().min(1).max(1_024),
  token: z.string().min(1).max(512),
  key: createKeyRequestSchema.omit({ accountId: true }),
});
