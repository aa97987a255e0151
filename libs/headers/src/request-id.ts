import { randomBytes } from 'node:crypto';

const prefix = randomBytes(4).toString('hex');
let counter = 0;

/**
 * A CF-RAY-style request id: 16 hex characters, unique per request. A random per-process prefix
 * plus a counter: unique across replicas without a syscall per request.
 */
export function newRequestId(): string {
  counter = (counter + 1) >>> 0;
  return prefix + counter.toString(16).padStart(8, '0');
}
