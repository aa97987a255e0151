import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'svc_';
const SECRET_PATTERN = /^svc_[A-Za-z0-9_-]{43}$/;
const HASH_PATTERN = /^[0-9a-f]{64}$/;

/** A new bearer secret: `svc_` + 32 random bytes as base64url (43 characters). */
export function generateApiKeySecret(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Hex SHA-256 of a secret: the only form that is stored or sent between services. */
export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The last six characters, shown to owners so they can tell their keys apart. */
export function lastSixOf(secret: string): string {
  return secret.slice(-6);
}

export function looksLikeGeneratedSecret(value: string): boolean {
  return SECRET_PATTERN.test(value);
}

export function isSecretHash(value: string): boolean {
  return HASH_PATTERN.test(value);
}

/** Constant-time comparison of two hex SHA-256 hashes; false for anything malformed. */
export function secretHashesEqual(a: string, b: string): boolean {
  if (!isSecretHash(a) || !isSecretHash(b)) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}
