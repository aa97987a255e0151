import { z } from 'zod';
import { refused } from './x402-errors';

/** The payment header names, canonical first (x402 v2 `PAYMENT-SIGNATURE`, then the legacy names). */
export const PAYMENT_HEADERS = ['payment-signature', 'x-402-payment', 'x-payment'] as const;

const requirementsSchema = z.object({
  scheme: z.string(),
  network: z.string(),
  amount: z.string().regex(/^\d{1,30}$/, 'must be a whole number of base units'),
  asset: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number().optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});

const uint = z.union([z.string().regex(/^\d{1,78}$/), z.number().int().nonnegative()]).transform((v) => BigInt(v));
const hex = (bytes: number) => z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`));

/** EIP-3009 `transferWithAuthorization` as the x402 exact scheme carries it on EVM networks. */
export const evmExactPayloadSchema = z.object({
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
  authorization: z.object({
    from: hex(20),
    to: hex(20),
    value: uint,
    validAfter: uint,
    validBefore: uint,
    nonce: hex(32),
  }),
});
export type EvmExactPayload = z.infer<typeof evmExactPayloadSchema>;

/** A Solana transaction (base64 wire format), partially signed by the payer, as the x402 exact scheme carries it. */
export const svmExactPayloadSchema = z.object({ transaction: z.string().min(1).max(8192) });

export const paymentPayloadSchema = z.object({
  x402Version: z.literal(2),
  accepted: requirementsSchema,
  payload: z.record(z.string(), z.unknown()),
  resource: z.unknown().optional(),
  extensions: z.unknown().optional(),
});
export type PaymentPayload = z.infer<typeof paymentPayloadSchema>;

/** Decodes the header's base64 JSON; every malformed header is a 400 naming what is wrong. */
export function decodePaymentHeader(value: string): PaymentPayload {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value.trim(), 'base64').toString('utf8'));
  } catch {
    throw refused('invalid_payload', 'The payment header is not base64-encoded JSON (an x402 v2 PaymentPayload).');
  }
  if (typeof json === 'object' && json !== null && (json as { x402Version?: unknown }).x402Version !== 2) {
    throw refused('unsupported_version', 'Only x402 version 2 payment payloads are accepted.');
  }
  const parsed = paymentPayloadSchema.safeParse(json);
  if (!parsed.success)
    throw refused(
      'invalid_payload',
      `The payment payload is malformed: ${parsed.error.issues[0].path.join('.') || 'payload'} ${parsed.error.issues[0].message}.`,
    );
  return parsed.data;
}

export const encodeHeader = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');
