import { HEADER } from './header-keys';

/**
 * What a browser script may read of a response (`Access-Control-Expose-Headers`): every header
 * the platform sends that is not CORS-safelisted (request id, version, model, rate-limit,
 * pagination, balance, image and retry headers, CSV download names, x402's payment answers, the
 * JSON-RPC proxy's replay marker).
 */
export const EXPOSED_HEADERS: readonly string[] = Object.values(HEADER).filter(
  (name) =>
    name.startsWith('x-') ||
    name === HEADER.requestId ||
    name === HEADER.retryAfter ||
    name === HEADER.retryAfterMs ||
    name === HEADER.contentDisposition ||
    name === HEADER.paymentRequired ||
    name === HEADER.paymentResponse ||
    name === HEADER.idempotentReplayed,
);
