import { Logger } from '@svc/logging';
import { GatewayConfig } from '../config';
import { clientErrorHandler, frameworkErrorHandler } from './client-error';

type ServerLimits = Pick<GatewayConfig, 'REQUEST_HEADERS_TIMEOUT_MS' | 'REQUEST_RECEIVE_TIMEOUT_MS' | 'KEEP_ALIVE_TIMEOUT_MS' | 'ERROR_STYLE'>;

/**
 * The HTTP server's limits on slow and half-open clients (docs/operations.md), and the one
 * error shape for what Fastify and Node refuse before a route runs (client-error.ts). Node checks
 * `headersTimeout` and `requestTimeout` only until a request has fully arrived, so a response
 * (an SSE stream) may run for minutes; there is no socket inactivity timeout for that reason.
 * Node sweeps for expired requests every `connectionsCheckingInterval` (30 s by default, which
 * would let a 15 s limit run to 45 s): a fifth of the shorter limit, 100 ms to 5 s.
 */
export function serverOptions(config: ServerLimits, logger: Logger) {
  const sweepMs = Math.min(5_000, Math.max(100, Math.floor(config.REQUEST_HEADERS_TIMEOUT_MS / 5)));
  return {
    requestTimeout: config.REQUEST_RECEIVE_TIMEOUT_MS,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
    connectionTimeout: 0,
    http: {
      headersTimeout: config.REQUEST_HEADERS_TIMEOUT_MS,
      requestTimeout: config.REQUEST_RECEIVE_TIMEOUT_MS,
      connectionsCheckingInterval: sweepMs,
    },
    clientErrorHandler: clientErrorHandler(config.ERROR_STYLE),
    frameworkErrors: frameworkErrorHandler(logger),
  };
}
