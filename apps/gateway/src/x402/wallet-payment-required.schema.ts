import { z } from 'zod';

/**
 * The reference's `X402InferencePaymentRequired` (its second branch): the 402 a wallet signed in
 * with SIGN-IN-WITH-X gets when its credit cannot cover a request. The builder's type and the
 * OpenAPI document's schema both come from here.
 */
export const walletPaymentRequiredSchema = z
  .object({
    error: z.literal('Payment required'),
    code: z.literal('PAYMENT_REQUIRED'),
    reason: z.literal('insufficient_balance'),
    message: z.string(),
    currentBalanceUsd: z.number().meta({ description: "The wallet's available credit, USD" }),
    minimumBalanceUsd: z.number().meta({ description: 'What this request needed to hold, USD' }),
    description: z.string(),
    suggestedTopUpUsd: z.number(),
    minimumTopUpUsd: z.number(),
    supportedTokens: z.array(z.string()),
    supportedChains: z.array(z.string()).meta({ description: 'The configured top-up rails: base, solana (none without a facilitator)' }),
    topUpInstructions: z.object({
      step1: z.string(),
      step2: z.string(),
      step3: z.string(),
      receiverWallet: z.string(),
      tokenAddress: z.string(),
      tokenDecimals: z.number(),
      network: z.string(),
      minimumAmountUsd: z.number(),
    }),
    siwxChallenge: z.object({
      info: z.object({
        domain: z.string(),
        uri: z.string(),
        version: z.literal('1'),
        nonce: z.string(),
        issuedAt: z.string(),
        expirationTime: z.string(),
        statement: z.string(),
      }),
      supportedChains: z.array(z.object({ chainId: z.string(), type: z.enum(['eip191', 'eip1271', 'ed25519']) })),
    }),
  })
  .meta({ id: 'X402InferencePaymentRequired' });

export type WalletPaymentRequiredBody = z.infer<typeof walletPaymentRequiredSchema>;
