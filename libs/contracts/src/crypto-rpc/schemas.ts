import { z } from 'zod';
import { requestBillingSchema } from '../billing/message-schemas';
import { callerContextSchema } from '../schemas/caller';
import { CRYPTO_RPC_MAX_BATCH } from './subjects';

/** A network slug as operators name them (`ethereum-mainnet`, `solana-devnet`). */
export const cryptoRpcNetworkSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'network must be a network slug (lower-case letters, digits and dashes); GET /api/v1/crypto/rpc/networks lists them');

/** A JSON-RPC method name: letters, digits and `_`, as EVM, Solana and Starknet nodes name them. */
const methodSchema = z
  .string({ error: 'method is required: the JSON-RPC method name' })
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,127}$/, 'method must be a JSON-RPC method name (letters, digits and _; at most 128 characters)');

/** One JSON-RPC 2.0 request object. `id` is required: every item gets an answer (no notifications). */
export const jsonRpcRequestItemSchema = z
  .object({
    jsonrpc: z.literal('2.0', { error: 'jsonrpc must be "2.0"' }).default('2.0'),
    method: methodSchema,
    params: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())], { error: 'params must be an array or an object' }).optional(),
    id: z.union([z.number().int(), z.string().max(256)], { error: 'id is required: an integer or a string, echoed in the answer' }),
  })
  .strict();

/** A batch: 1 to CRYPTO_RPC_MAX_BATCH request objects. */
export const jsonRpcBatchSchema = z
  .array(jsonRpcRequestItemSchema)
  .min(1, 'a batch must hold at least one request')
  .max(CRYPTO_RPC_MAX_BATCH, `a batch may hold at most ${CRYPTO_RPC_MAX_BATCH} requests`);

/** `POST /crypto/rpc/{network}`: a single request object or a batch. */
export const jsonRpcBodySchema = z.union([jsonRpcRequestItemSchema, jsonRpcBatchSchema]);

export const cryptoRpcNetworksRequestSchema = z.object({ requestId: z.string() });
export const cryptoRpcQuoteRequestSchema = z.object({
  requestId: z.string(),
  network: cryptoRpcNetworkSchema,
  methods: z.array(methodSchema).min(1).max(CRYPTO_RPC_MAX_BATCH),
  batch: z.boolean(),
});
export const cryptoRpcCallRequestSchema = z.object({
  caller: callerContextSchema,
  billing: requestBillingSchema.optional(),
  network: cryptoRpcNetworkSchema,
  body: jsonRpcBodySchema,
});
