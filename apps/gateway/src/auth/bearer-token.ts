import { hashApiKeySecret } from '@svc/auth';

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

const hashes = new WeakMap<object, { header: string; hash: string }>();

/**
 * The secret hash of a request's bearer token, computed once per request: the abuse hook (before
 * authentication) and the API-key guard both need it. Undefined without a token.
 */
export function bearerSecretHash(request: { headers: { authorization?: string } }): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const known = hashes.get(request);
  if (known?.header === header) return known.hash;
  const token = bearerToken(header);
  if (token === undefined) return undefined;
  const hash = hashApiKeySecret(token);
  hashes.set(request, { header, hash });
  return hash;
}
