import { randomBytes } from 'node:crypto';

/** A CF-RAY-style request id: 16 hex characters, unique per request. */
export function newRequestId(): string {
  return randomBytes(8).toString('hex');
}
