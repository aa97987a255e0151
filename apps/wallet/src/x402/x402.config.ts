import { z } from 'zod';
import { positiveInt } from '@svc/config';

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte EVM address');
const solanaAddress = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'must be a base58 Solana address');
const optional = <T extends z.ZodTypeAny>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** x402 top-ups (docs/wallet.md, "x402 top-ups"): a network is offered only once its pay-to address is set. */
export const x402Env = {
  /** The x402 facilitator's base URL (its POST /verify and /settle). Unset: top-ups answer 503 and nothing is credited. */
  X402_FACILITATOR_URL: optional(z.string().url()),
  /** Milliseconds each facilitator call may take (settling waits for the chain). */
  X402_FACILITATOR_TIMEOUT_MS: positiveInt(30_000),
  /** Receives USDC on Base (eip155:8453). */
  X402_BASE_PAY_TO: optional(evmAddress),
  /** A Base JSON-RPC node: lets contract wallets (EIP-1271, EIP-6492) pay; unset, only ordinary (EOA) wallets can. */
  X402_BASE_RPC_URL: optional(z.string().url()),
  /** USDC's contract on Base; its EIP-712 domain is name "USD Coin", version "2". */
  X402_BASE_USDC: evmAddress.default('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
  /** Receives USDC on Solana mainnet (the owner of the receiving token account); offered with X402_SOLANA_FEE_PAYER. */
  X402_SOLANA_PAY_TO: optional(solanaAddress),
  X402_SOLANA_USDC: solanaAddress.default('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
  /** The facilitator's fee payer on Solana, offered in `extra.feePayer` (the transaction's first signer). */
  X402_SOLANA_FEE_PAYER: optional(solanaAddress),
  /** Seconds a payment may take to settle, and the longest validity window accepted. */
  X402_MAX_TIMEOUT_SECONDS: positiveInt(300),
  /** A payment claimed or settled but not credited this long ago is resumed by the resumer. */
  X402_RESUME_AFTER_MS: positiveInt(60_000),
};
