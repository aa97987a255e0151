import { z } from 'zod';
import { commonEnv, loadConfig, positiveInt, postgresUrl } from '@svc/config';
import { cryptoRpcEnv } from './rpc/rpc.config';
import { x402Env } from './x402/x402.config';

const BASE_MAINNET = '8453';
const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

const bool = (fallback: 'true' | 'false') =>
  z
    .enum(['true', 'false'])
    .default(fallback)
    .transform((v) => v === 'true');

const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional());

export const walletConfigSchema = z.object({
  ...commonEnv,
  WALLET_DATABASE_URL: postgresUrl('svc_wallet'),
  WALLET_DB_POOL_MAX: positiveInt(10),
  /** Apply pending migrations at boot (harmless when `npm run migrate` already did). */
  WALLET_MIGRATE_ON_BOOT: bool('true'),
  /**
   * The public URL clients call (the gateway's). Its host is the EIP-4361 `domain` a sign-in
   * message must name, and its origin the origin of the message's `URI`.
   */
  SIWX_PUBLIC_URL: z.string().url().default('http://localhost:3000'),
  /** EVM chain ids a sign-in may name, comma-separated (Base mainnet by default). */
  SIWX_EVM_CHAIN_IDS: z
    .string()
    .default(BASE_MAINNET)
    .transform((v) => v.split(',').map((s) => s.trim()))
    .pipe(z.array(z.string().regex(/^\d{1,12}$/, 'must be decimal chain ids')).min(1)),
  /** The Solana cluster a sign-in must name (CAIP-2), mainnet by default. */
  SIWX_SOLANA_CHAIN: z
    .string()
    .regex(/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/, 'must be solana:<genesis hash>')
    .default(SOLANA_MAINNET),
  /** The longest a signed message may live (issued-at to expiration); a message without an expiration lives this long. */
  SIWX_MAX_AGE_MS: positiveInt(10 * 60_000),
  /** Clock difference tolerated between the wallet and this server, on issued-at, not-before and expiration. */
  SIWX_CLOCK_SKEW_MS: z.coerce.number().int().min(0).max(300_000).default(60_000),
  /**
   * An EVM JSON-RPC node of the sign-in chain. When set, contract wallets (EIP-1271, and EIP-6492
   * for ones not deployed yet) can sign in; without it only plain (EOA) signatures are accepted.
   */
  SIWX_EVM_RPC_URL: optionalUrl,
  /** Verified headers remembered (signature checks skipped on a repeat; the nonce rule still applies). 0 turns it off. */
  SIWX_VERIFIED_CACHE_MAX: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  /** How long a generate_web3_key token may wait for its signature. */
  WEB3_KEY_TOKEN_TTL_MS: positiveInt(10 * 60_000),
  ...x402Env,
  ...cryptoRpcEnv,
});
export type WalletConfig = z.infer<typeof walletConfigSchema>;
export const loadServiceConfig = (env: NodeJS.ProcessEnv = process.env): WalletConfig => loadConfig('wallet', walletConfigSchema, env);

/** Injection token for the validated config. */
export const WALLET_CONFIG = Symbol('WALLET_CONFIG');
