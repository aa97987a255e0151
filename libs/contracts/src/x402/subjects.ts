import { Nano } from '../billing/money';

/** x402 USDC top-ups, served by the wallet service (docs/wallet.md, "x402 top-ups"). */
export const X402 = {
  /** The `accepts` array a 402 answers with (no payment header yet). */
  REQUIREMENTS: 'wallet.cmd.x402-requirements.v1',
  /** Verify, settle and credit one signed payment. */
  TOP_UP: 'wallet.cmd.x402-top-up.v1',
  /** A wallet's balance and history, read back from billing. */
  BALANCE: 'wallet.cmd.x402-balance.v1',
  TRANSACTIONS: 'wallet.cmd.x402-transactions.v1',
  /** What an inference 402 offers a signed-in wallet: the top-up options (none without a facilitator) and the SIWX terms. */
  PAYMENT_TERMS: 'wallet.cmd.x402-payment-terms.v1',
} as const;

/** The payment state billing keeps (billing's `x402_payments`, docs/billing.md). */
export const BILLING_X402 = {
  /** Claims a payment by its reference (network + payer + nonce) before it is settled. */
  CLAIM: 'billing.cmd.x402-claim.v1',
  /** The facilitator settled it: records the transaction, still uncredited. */
  SETTLED: 'billing.cmd.x402-settled.v1',
  /** Credits a settled payment to its account, once ever. */
  CREDIT: 'billing.cmd.x402-credit.v1',
  /** The facilitator refused it: the reference may be claimed again. */
  FAILED: 'billing.cmd.x402-failed.v1',
  /** Payments claimed or settled but not credited, older than a given age (the resumer's work). */
  UNFINISHED: 'billing.cmd.x402-unfinished.v1',
  /** An account's ledger as x402 transactions (credits and charges), newest first. */
  HISTORY: 'billing.cmd.x402-history.v1',
} as const;

/** One option of the 402 answer's `accepts` (x402 v2 `PaymentRequirements`). */
export interface X402PaymentRequirements {
  scheme: 'exact';
  /** CAIP-2, e.g. `eip155:8453`. */
  network: string;
  /** Base units of the asset (USDC: 6 decimals). */
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra?: Record<string, unknown>;
}

export interface X402RequirementsReply {
  x402Version: 2;
  accepts: X402PaymentRequirements[];
}

/** A SIWX chain and the signature type the wallet service verifies on it. */
export interface SiwxSupportedChain {
  /** CAIP-2: `eip155:8453`, `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp`. */
  chainId: string;
  type: 'eip191' | 'eip1271' | 'ed25519';
}

/** The sign-in rules a fresh SIWX challenge must meet (the wallet service's SIWX configuration). */
export interface SiwxTerms {
  /** EIP-4361 `domain`: the host of SIWX_PUBLIC_URL. */
  domain: string;
  /** The origin a message's `URI` must be on. */
  origin: string;
  statement: string;
  /** The longest a signed message may live (SIWX_MAX_AGE_MS). */
  maxAgeMs: number;
  supportedChains: SiwxSupportedChain[];
}

export interface X402PaymentTermsReply {
  x402Version: 2;
  /** The options `POST /x402/top-up` offers; empty when no facilitator or pay-to is configured. */
  accepts: X402PaymentRequirements[];
  siwx: SiwxTerms;
}

export interface X402TopUpRequest {
  requestId: string;
  /** The header's raw value (base64 JSON `PaymentPayload`). */
  payment: string;
}

export interface X402TopUpReply {
  walletAddress: string;
  amountCredited: number;
  newBalance: number;
  paymentId: string;
  /** Base64 JSON settlement result for the `PAYMENT-RESPONSE` header. */
  paymentResponse: string;
}

export interface X402WalletRequest {
  requestId: string;
  walletAddress: string;
  /** When set, the wallet's account must be this one (an ADMIN key of its account reads it). */
  accountId?: string;
}

export interface X402BalanceReply {
  walletAddress: string;
  balanceUsd: number;
  canConsume: boolean;
  minimumTopUpUsd: number;
  suggestedTopUpUsd: number;
}

export interface X402TransactionsRequest extends X402WalletRequest {
  limit: number;
  offset: number;
}

export interface X402Transaction {
  id: string;
  amount: number;
  balanceAfter: number;
  type: string;
  createdAt: string;
  requestId: string | null;
  modelId: string | null;
}

export interface X402TransactionsReply {
  walletAddress: string;
  currentBalance: number;
  transactions: X402Transaction[];
  pagination: { limit: number; offset: number; hasMore: boolean };
}

export type X402PaymentStatus = 'PENDING' | 'SETTLED' | 'CREDITED' | 'FAILED';

export interface X402ClaimRequest {
  /** `<caip2 network>:<payer>:<nonce>`, lower-cased where the network's addresses are case-insensitive. */
  reference: string;
  accountId: string;
  walletAddress: string;
  network: string;
  amountNano: Nano;
  /** The decoded payment payload and the requirements it was checked against, to resume settling after a restart. */
  payment: unknown;
}

export interface X402ClaimReply {
  paymentId: string;
  status: X402PaymentStatus;
  /** True when this call claimed it (created, or took over a failed attempt): only the claimer settles. */
  claimed: boolean;
}

export interface X402ReferenceRequest {
  reference: string;
}

export interface X402SettledRequest extends X402ReferenceRequest {
  transaction: string;
}

export interface X402FailedRequest extends X402ReferenceRequest {
  reason: string;
}

export interface X402CreditReply {
  /** `applied` now, `duplicate` when credited before, `not_settled` when not settled yet. */
  status: 'applied' | 'duplicate' | 'not_settled';
  paymentId: string;
  accountId: string;
  walletAddress: string;
  amountNano: Nano;
  transaction: string | null;
  balanceNano: Nano;
}

export interface X402UnfinishedRequest {
  olderThanMs: number;
  limit: number;
}

export interface X402UnfinishedPayment {
  reference: string;
  status: 'PENDING' | 'SETTLED';
  payment: unknown;
}

export interface X402UnfinishedReply {
  payments: X402UnfinishedPayment[];
}

export interface X402HistoryRequest {
  accountId: string;
  limit: number;
  offset: number;
}

export interface X402HistoryEntry {
  id: string;
  amountNano: Nano;
  balanceAfterNano: Nano;
  kind: string;
  createdAt: string;
  requestId: string | null;
  modelId: string | null;
}

export interface X402HistoryReply {
  entries: X402HistoryEntry[];
  hasMore: boolean;
  balanceNano: Nano;
}

export interface X402Rpc {
  [X402.REQUIREMENTS]: { req: { requestId: string }; res: X402RequirementsReply };
  [X402.PAYMENT_TERMS]: { req: { requestId: string }; res: X402PaymentTermsReply };
  [X402.TOP_UP]: { req: X402TopUpRequest; res: X402TopUpReply };
  [X402.BALANCE]: { req: X402WalletRequest; res: X402BalanceReply };
  [X402.TRANSACTIONS]: { req: X402TransactionsRequest; res: X402TransactionsReply };
  [BILLING_X402.CLAIM]: { req: X402ClaimRequest; res: X402ClaimReply };
  [BILLING_X402.SETTLED]: { req: X402SettledRequest; res: { status: X402PaymentStatus } };
  [BILLING_X402.CREDIT]: { req: X402ReferenceRequest; res: X402CreditReply };
  [BILLING_X402.FAILED]: { req: X402FailedRequest; res: { status: X402PaymentStatus } };
  [BILLING_X402.UNFINISHED]: { req: X402UnfinishedRequest; res: X402UnfinishedReply };
  [BILLING_X402.HISTORY]: { req: X402HistoryRequest; res: X402HistoryReply };
}
