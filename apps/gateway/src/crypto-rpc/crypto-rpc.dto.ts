import { z } from 'zod';
import { cryptoRpcNetworkSchema, JsonRpcBody, jsonRpcBatchSchema, jsonRpcBodySchema, jsonRpcRequestItemSchema } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { parseBody } from '../http/parse-body';

/** `POST /crypto/rpc/{network}`'s path. */
export const cryptoRpcParams = z.object({ network: cryptoRpcNetworkSchema });

/** The body as the OpenAPI document shows it: one request object or a batch. */
export const cryptoRpcBodySchema = jsonRpcBodySchema;

/** The reference's `Idempotency-Key` pattern. */
export const idempotencyKeySchema = z.string().regex(/^[A-Za-z0-9_-]{1,255}$/, 'Idempotency-Key must be 1 to 255 characters of letters, digits, _ and -');

/** The largest body relayed (bytes of its JSON): it travels to the wallet service in one NATS message. */
export const CRYPTO_RPC_MAX_BODY_BYTES = 512 * 1024;

/** Validates a body: a batch item by item (400 naming `<index>.<field>`), a single object by field. */
export function parseRpcBody(body: unknown): JsonRpcBody {
  const parsed = Array.isArray(body) ? parseBody(jsonRpcBatchSchema, body) : parseBody(jsonRpcRequestItemSchema, body);
  const bytes = Buffer.byteLength(JSON.stringify(parsed));
  if (bytes > CRYPTO_RPC_MAX_BODY_BYTES)
    throw new DomainError(
      ErrorCode.PayloadTooLarge,
      `The JSON-RPC body is ${bytes} bytes; at most ${CRYPTO_RPC_MAX_BODY_BYTES} are relayed. Send a smaller batch.`,
    );
  return parsed;
}

export function parseIdempotencyKey(value: string | string[]): string {
  const parsed = idempotencyKeySchema.safeParse(Array.isArray(value) ? value.join(',') : value);
  if (!parsed.success) {
    throw new DomainError(ErrorCode.Validation, parsed.error.issues[0].message, {
      _errors: [],
      'Idempotency-Key': { _errors: [parsed.error.issues[0].message] },
    });
  }
  return parsed.data;
}
