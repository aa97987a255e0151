import { z } from 'zod';

/** EVM (0x + 40 hex) or Solana (base58) address, as the reference's path pattern. */
export const walletParams = z.object({
  walletAddress: z.string().regex(/^(0x[a-fA-F0-9]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/, 'must be an EVM or Solana wallet address'),
});

export const x402TransactionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
