import { trace, Tracer } from '@opentelemetry/api';

/**
 * Whether this process records spans. Read on the hot path (every NATS call, every request) as a
 * plain property, so with tracing off a call pays one branch and nothing else: no span object,
 * no context lookup, no header (bench/RESULTS.md, "Tracing off").
 */
export const TRACING = { on: false };

export const TRACER_NAME = '@svc/tracing';

export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/** Span attribute: the gateway's request id (the `CF-RAY` value), on every span of a request. */
export const ATTR_REQUEST_ID = 'svc.request_id';
