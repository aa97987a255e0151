import { z } from 'zod';
import { nanoSchema, uuid } from '../billing/schemas';

// Checked on receipt by the service that answers each subject (one schema per message).

const reference = z.string().min(1).max(300);
const walletAddress = z.string().min(1).max(64);

export const x402ClaimRequestSchema = z.object({
  reference,
  accountId: uuid,
  walletAddress,
  network: z.string().min(1).max(64),
  amountNano: nanoSchema,
  payment: z.unknown(),
});
export const x402ReferenceRequestSchema = z.object({ reference });
export const x402SettledRequestSchema = z.object({ reference, transaction: z.string().min(1).max(200) });
export const x402FailedRequestSchema = z.object({ reference, reason: z.string().max(2000) });
export const x402UnfinishedRequestSchema = z.object({ olderThanMs: z.number().int().min(0), limit: z.number().int().min(1).max(1000) });
export const x402HistoryRequestSchema = z.object({ accountId: uuid, limit: z.number().int().min(1).max(100), offset: z.number().int().min(0) });

export const x402TopUpRequestSchema = z.object({ requestId: z.string(), payment: z.string().min(1).max(16_384) });
export const x402WalletRequestSchema = z.object({ requestId: z.string(), walletAddress, accountId: uuid.optional() });
export const x402TransactionsRequestSchema = x402WalletRequestSchema.extend({
  limit: z.number().int().min(1).max(100),
  offset: z.number().int().min(0),
});
