import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { positiveInt } from '@svc/config';
import { cryptoRpcNetworkSchema } from '@svc/contracts';
import { DEFAULT_ALLOWED_METHODS, DEFAULT_DENIED_METHODS } from './method-table';
import { METHOD_PATTERN } from './method-patterns';

/** Chain families: which methods a network's nodes speak (a call of another family is refused). */
export const RPC_FAMILIES = ['evm', 'solana', 'starknet'] as const;
export type RpcFamily = (typeof RPC_FAMILIES)[number];

const nodeUrl = z
  .string()
  .url()
  .refine((v) => ['http:', 'https:'].includes(new URL(v).protocol), 'a node URL must be http or https');

const networkSchema = z
  .object({
    /** The node, or nodes tried in order when one is down or answers 5xx. */
    url: nodeUrl.optional(),
    urls: z.array(nodeUrl).min(1).max(10).optional(),
    family: z.enum(RPC_FAMILIES).default('evm'),
    /** For the operator's records and the boot log; never sent to clients. */
    chainId: z.union([z.number().int().positive(), z.string().min(1).max(100)]).optional(),
    /** Credits of a standard (1x) call; by default 20, and 30 on Solana and zkSync. */
    baseCredits: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict()
  .refine((n) => (n.url === undefined) !== (n.urls === undefined), 'set exactly one of url and urls');

export interface RpcNetwork {
  slug: string;
  urls: string[];
  family: RpcFamily;
  chainId?: number | string;
  baseCredits: number;
}

const networksSchema = z.record(cryptoRpcNetworkSchema, networkSchema).transform((networks): Record<string, RpcNetwork> => {
  const out: Record<string, RpcNetwork> = {};
  for (const [slug, n] of Object.entries(networks)) {
    const baseCredits = n.baseCredits ?? (n.family === 'solana' || slug.startsWith('zksync') ? 30 : 20);
    out[slug] = { slug, urls: n.urls ?? [n.url!], family: n.family, chainId: n.chainId, baseCredits };
  }
  return out;
});

/** JSON inline (starts with `{`), or the path of a JSON file. Empty: no networks. */
function jsonOrFile(value: unknown, ctx: z.RefinementCtx): unknown {
  if (value === undefined || value === '') return {};
  if (typeof value !== 'string') return value;
  let text = value.trim();
  if (!text.startsWith('{')) {
    try {
      text = readFileSync(text, 'utf8');
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `not JSON, and no file could be read there (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
      return z.NEVER;
    }
  }
  try {
    return JSON.parse(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
    return z.NEVER;
  }
}

const patternList = (fallback: readonly string[]) =>
  z
    .string()
    .optional()
    .transform((v) =>
      v === undefined || v.trim() === ''
        ? [...fallback]
        : v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(METHOD_PATTERN, 'each entry must be a method name, prefix* or *suffix')));

/** A USD (or DIEM) amount of at most 9 decimals: a charge is then exact in nano-units. */
const creditPrice = z
  .string()
  .trim()
  .regex(/^\d{1,6}(\.\d{1,9})?$/, 'must be a decimal number with at most 9 decimals')
  .transform(Number);

/** The JSON-RPC proxy (docs/wallet.md, "JSON-RPC proxy"). By default no networks: /networks lists none. */
export const cryptoRpcEnv = {
  /** `{ "<slug>": { "url" | "urls", "family"?, "chainId"?, "baseCredits"? } }` as JSON, or a JSON file's path. */
  CRYPTO_RPC_NETWORKS: z.preprocess(jsonOrFile, networksSchema),
  /** Comma-separated method patterns served (replaces the built-in list of common EVM, Starknet and Solana methods). */
  CRYPTO_RPC_ALLOWED_METHODS: patternList(DEFAULT_ALLOWED_METHODS),
  /** Comma-separated method patterns refused even when allowed (replaces the built-in filters, subscriptions and node-key methods). */
  CRYPTO_RPC_DENIED_METHODS: patternList(DEFAULT_DENIED_METHODS),
  /** `{ "<pattern>": <tier> }` JSON, added over the built-in tiers (credits = base credits x tier). */
  CRYPTO_RPC_METHOD_TIERS: z.preprocess(
    jsonOrFile,
    z.record(z.string().regex(METHOD_PATTERN, 'each key must be a method name, prefix* or *suffix'), z.number().int().min(1).max(1000)),
  ),
  /** Credits of an item the node answers with a JSON-RPC error (never more than the method's own credits). */
  CRYPTO_RPC_ERROR_CREDITS: z.coerce.number().int().min(0).max(1_000_000).default(5),
  /** The price of one credit in USD (7e-7: a standard EVM call of 20 credits costs 0.000014 USD). */
  CRYPTO_RPC_PRICE_PER_CREDIT_USD: creditPrice.default(0.0000007),
  /** The price of one credit in DIEM, for accounts paying in DIEM; the USD price by default. */
  CRYPTO_RPC_PRICE_PER_CREDIT_DIEM: z.preprocess((v) => (v === '' ? undefined : v), creditPrice.optional()),
  /** Milliseconds the node(s) have to answer, all attempts together. */
  CRYPTO_RPC_TIMEOUT_MS: positiveInt(15_000),
  /** The largest node answer relayed; a larger one is refused and nothing is charged (it must fit a NATS message). */
  CRYPTO_RPC_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(768 * 1024)
    .default(512 * 1024),
};

export const cryptoRpcConfigSchema = z.object(cryptoRpcEnv);
export type CryptoRpcConfig = z.infer<typeof cryptoRpcConfigSchema>;
