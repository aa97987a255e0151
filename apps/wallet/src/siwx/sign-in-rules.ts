import { DomainError, ErrorCode } from '@svc/errors';
import { SignInFields } from './sign-in-fields';

export interface SignInPolicy {
  /** The host (with port when not the default) clients reach: EIP-4361 `domain`. */
  domain: string;
  /** The origin the message `URI` must be on. */
  origin: string;
  /** Chain ids this network accepts, as the message writes them. */
  chainIds: readonly string[];
  maxAgeMs: number;
  skewMs: number;
}

const refuse = (message: string): never => {
  throw new DomainError(ErrorCode.Unauthorized, message);
};

/** EIP-4361 nonces: at least 8 alphanumeric characters. */
const NONCE = /^[A-Za-z0-9]{8,128}$/;

/**
 * The checks every sign-in message passes before its signature is worth verifying: domain, URI,
 * version, chain, nonce, and the validity window with clock skew. Returns when the message stops
 * being acceptable (epoch ms), which is how long its nonce must stay spent.
 */
export function checkSignInFields(fields: SignInFields, chainId: string, policy: SignInPolicy, now: number): number {
  if (fields.domain !== policy.domain) refuse(`Sign-in message is for domain "${clip(fields.domain)}", not "${policy.domain}".`);
  if (!fields.uri || originOf(fields.uri) !== policy.origin) refuse(`Sign-in message URI must be on ${policy.origin}.`);
  if (fields.version !== '1') refuse('Sign-in message version must be 1.');
  if (!fields.chainId || !policy.chainIds.includes(fields.chainId))
    refuse(`Sign-in chain "${clip(fields.chainId)}" is not accepted here (accepted: ${policy.chainIds.join(', ')}).`);
  if (fields.chainId !== chainId) refuse('The header chainId does not match the chain in the signed message.');
  if (!fields.nonce || !NONCE.test(fields.nonce)) refuse('Sign-in message nonce must be at least 8 letters and digits.');
  const issuedAt = validTime(fields.issuedAt, 'Issued At');
  if (issuedAt === undefined) return refuse('Sign-in message has no Issued At time.');
  const expiration = validTime(fields.expirationTime, 'Expiration Time') ?? issuedAt + policy.maxAgeMs;
  const notBefore = validTime(fields.notBefore, 'Not Before');
  if (issuedAt > now + policy.skewMs) refuse('Sign-in message is issued in the future; check the clock.');
  if (expiration - issuedAt > policy.maxAgeMs) refuse(`Sign-in message lives longer than ${policy.maxAgeMs / 1000} s; sign a shorter one.`);
  if (expiration <= now - policy.skewMs) refuse('Sign-in message has expired; sign a new one.');
  if (notBefore !== undefined && notBefore > now + policy.skewMs) refuse('Sign-in message is not valid yet (Not Before).');
  return expiration + policy.skewMs;
}

function validTime(value: Date | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = value.getTime();
  return Number.isNaN(ms) ? refuse(`Sign-in message ${field} is not an RFC 3339 date-time.`) : ms;
}

function originOf(uri: string): string | null {
  try {
    return new URL(uri).origin;
  } catch {
    return null;
  }
}

const clip = (value: string | undefined): string => (value ?? '').slice(0, 100);
