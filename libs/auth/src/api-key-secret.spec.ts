import { createHash } from 'node:crypto';
import { generateApiKeySecret, hashApiKeySecret, isSecretHash, lastSixOf, looksLikeGeneratedSecret, secretHashesEqual } from './api-key-secret';

describe('generateApiKeySecret', () => {
  it('is svc_ followed by 43 base64url characters (32 random bytes)', () => {
    const secret = generateApiKeySecret();
    expect(secret).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice(4), 'base64url')).toHaveLength(32);
    expect(looksLikeGeneratedSecret(secret)).toBe(true);
  });

  it('never repeats', () => {
    const secrets = new Set(Array.from({ length: 1000 }, generateApiKeySecret));
    expect(secrets.size).toBe(1000);
  });
});

describe('hashApiKeySecret', () => {
  it('is the lowercase hex SHA-256 of the UTF-8 secret', () => {
    expect(hashApiKeySecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const secret = generateApiKeySecret();
    expect(hashApiKeySecret(secret)).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(isSecretHash(hashApiKeySecret(secret))).toBe(true);
  });

  it('differs for secrets that differ in one character', () => {
    expect(hashApiKeySecret('svc_a')).not.toBe(hashApiKeySecret('svc_b'));
  });
});

describe('lastSixOf', () => {
  it('returns the final six characters', () => {
    expect(lastSixOf('svc_abcdefGHIJKL')).toBe('GHIJKL');
  });
});

describe('secretHashesEqual', () => {
  const h = hashApiKeySecret('x');
  it('matches equal hashes only', () => {
    expect(secretHashesEqual(h, h)).toBe(true);
    expect(secretHashesEqual(h, hashApiKeySecret('y'))).toBe(false);
  });
  it('rejects malformed input instead of throwing', () => {
    expect(secretHashesEqual(h, 'abc')).toBe(false);
    expect(secretHashesEqual(h.toUpperCase(), h)).toBe(false);
  });
});
