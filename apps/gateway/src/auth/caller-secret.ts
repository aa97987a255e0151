import { bearerSecretHash } from './bearer-token';
import { siwxIdentityHash } from './siwx-header';

/**
 * Who a request claims to be, before authentication: its bearer key's secret hash, else the hash of
 * the wallet its SIGN-IN-WITH-X header names (a bearer key wins when both are sent, as in the guard).
 */
export function callerSecretHash(request: { headers: { authorization?: string } & Record<string, string | string[] | undefined> }): string | undefined {
  return bearerSecretHash(request) ?? siwxIdentityHash(request);
}
