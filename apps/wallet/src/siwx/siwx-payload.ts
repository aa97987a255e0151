import { z } from 'zod';
import { DomainError, ErrorCode } from '@svc/errors';

/**
 * The decoded SIGN-IN-WITH-X header (the reference's `siwx` security scheme): base64 JSON with
 * the wallet address, the signed message, its signature, a timestamp (ms), the chain and the
 * signature type (`ed25519` for Solana; omitted or `eip191`/`eip1271` for EVM).
 */
const payloadSchema = z.object({
  address: z.string().min(1).max(64),
  message: z.string().min(1).max(4_096),
  signature: z.string().min(1).max(2_048),
  timestamp: z.union([z.number(), z.string().regex(/^\d{1,16}$/)]),
  chainId: z.union([z.number().int().positive(), z.string().min(1).max(100)]),
  type: z.enum(['eip191', 'eip1271', 'ed25519']).optional(),
});

export type SiwxPayload = z.infer<typeof payloadSchema> & { network: 'evm' | 'solana'; chain: string };

export const INVALID_HEADER = 'Invalid SIGN-IN-WITH-X header: send base64 JSON with address, message, signature, timestamp and chainId (docs/wallet.md).';

export function decodeSiwxPayload(header: string): SiwxPayload {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(header.trim(), 'base64').toString('utf8'));
  } catch {
    throw new DomainError(ErrorCode.Unauthorized, INVALID_HEADER);
  }
  const parsed = payloadSchema.safeParse(json);
  if (!parsed.success) throw new DomainError(ErrorCode.Unauthorized, INVALID_HEADER);
  const payload = parsed.data;
  const chain = String(payload.chainId);
  const network = payload.type === 'ed25519' || chain.startsWith('solana:') ? 'solana' : 'evm';
  // An EVM chain may be written 8453, "8453" or "eip155:8453".
  return { ...payload, network, chain: network === 'evm' ? chain.replace(/^eip155:/, '') : chain };
}
