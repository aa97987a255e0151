import { HEADER } from '@svc/headers';
import { RawAnswer } from './raw-http';

/** A fuzz case: the raw request and a short description for the failure report. */
export interface Case {
  name: string;
  request: Buffer;
  /** OpenAI's error body is allowed as well as the spec's. */
  openAiErrors?: boolean;
  /** A HEAD request: the answer has a head only. */
  bodiless?: boolean;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The spec's StandardError / DetailedError: `{error: string, details?: object}` and nothing else. */
function isSpecError(body: unknown): boolean {
  if (!isPlainObject(body)) return false;
  const keys = Object.keys(body);
  return (
    typeof body.error === 'string' &&
    body.error.length > 0 &&
    keys.every((k) => k === 'error' || k === 'details') &&
    (body.details === undefined || isPlainObject(body.details))
  );
}

/** OpenAI's error body, kept for the OpenAI-compatible errors that clients act on (context_length_exceeded). */
function isOpenAiError(body: unknown): boolean {
  if (!isPlainObject(body) || !isPlainObject(body.error) || Object.keys(body).length !== 1) return false;
  const e = body.error;
  return typeof e.message === 'string' && typeof e.type === 'string' && typeof e.code === 'string' && (e.param === null || typeof e.param === 'string');
}

/**
 * x402's own 402s, which x402 clients read: PaymentRequired (`{x402Version, accepts, ...}`, POST
 * /x402/top-up), and the reference's PAYMENT_REQUIRED body to a wallet short of credit (inference).
 */
function isX402Challenge(status: number, body: unknown): boolean {
  if (status !== 402 || !isPlainObject(body)) return false;
  if (typeof body.x402Version === 'number' && Array.isArray(body.accepts)) return true;
  return body.code === 'PAYMENT_REQUIRED' && typeof body.error === 'string' && isPlainObject(body.topUpInstructions) && isPlainObject(body.siwxChallenge);
}

/** What is wrong with an answer, in words; null when it is acceptable (a 2xx/3xx, or a 4xx in the one error shape). */
export function problemOf(answer: RawAnswer, options: { openAiErrors?: boolean; bodiless?: boolean } = {}): string | null {
  if (answer.hung) return `no complete answer within ${answer.ms} ms (hang)`;
  if (answer.status === 0) return 'the connection closed without an answer';
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.body.toString().slice(0, 200)}`;
  if (!answer.headers[HEADER.requestId]) return `answered ${answer.status} without the ${HEADER.requestId} header`;
  if (answer.status < 400) return null;
  if (!answer.headers[HEADER.contentType]?.startsWith('application/json')) return `answered ${answer.status} as ${answer.headers[HEADER.contentType]}`;
  if (options.bodiless) return null;
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString());
  } catch {
    return `answered ${answer.status} with a body that is not JSON: ${answer.body.toString().slice(0, 200)}`;
  }
  if (isSpecError(body) || (options.openAiErrors && isOpenAiError(body)) || isX402Challenge(answer.status, body)) return null;
  return `answered ${answer.status} outside the error shape: ${answer.body.toString().slice(0, 200)}`;
}
