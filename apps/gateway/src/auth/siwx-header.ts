import { createHash } from 'node:crypto';
import { MAX_SIWX_HEADER_LENGTH } from '@svc/contracts';
import { HEADER } from '@svc/headers';

type Headers = Record<string, string | string[] | undefined>;

/** The SIGN-IN-WITH-X header (or its legacy name X-Sign-In-With-X), or undefined. */
export function siwxHeader(request: { headers: Headers }): string | undefined {
  const value = request.headers[HEADER.signInWithX] ?? request.headers[HEADER.signInWithXLegacy];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export const siwxTooLong = (header: string): boolean => header.length > MAX_SIWX_HEADER_LENGTH;

const identities = new WeakMap<object, { header: string; hash: string | undefined }>();

/**
 * A stable hash of the wallet a SIGN-IN-WITH-X header claims (EVM addresses in lowercase), before
 * any verification: what the abuse block keys a wallet caller by, as it keys a key by its secret
 * hash. Safe unverified: failures only count against it once the sign-in verified (until then
 * they count against the client address), so nobody can get another wallet blocked.
 */
export function siwxIdentityHash(request: { headers: Headers }): string | undefined {
  const header = siwxHeader(request);
  if (header === undefined || siwxTooLong(header)) return undefined;
  const known = identities.get(request);
  if (known?.header === header) return known.hash;
  const address = claimedAddress(header);
  const hash = address === undefined ? undefined : createHash('sha256').update(`siwx:${address}`).digest('hex');
  identities.set(request, { header, hash });
  return hash;
}

function claimedAddress(header: string): string | undefined {
  try {
    const address = (JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { address?: unknown }).address;
    if (typeof address !== 'string' || address.length === 0 || address.length > 64) return undefined;
    return address.startsWith('0x') || address.startsWith('0X') ? address.toLowerCase() : address;
  } catch {
    return undefined;
  }
}
