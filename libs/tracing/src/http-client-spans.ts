import { context, propagation, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { tracer } from './tracing-state';

/** The part of undici's request object (npm undici and Node's fetch alike) these spans read. */
interface UndiciRequest {
  origin?: string | URL;
  method: string;
  path: string;
  addHeader(name: string, value: string): unknown;
}

const spans = new WeakMap<object, Span>();

function onCreate(message: unknown): void {
  const { request } = message as { request: UndiciRequest };
  const parent = context.active();
  if (!trace.getSpan(parent)) return; // only calls made on behalf of a traced request
  const origin = String(request.origin ?? '');
  // The path without its query: providers put keys in query strings, prompts never go there but keys might.
  const path = request.path.split('?', 1)[0];
  const span = tracer().startSpan(
    `${request.method} ${origin}`,
    { kind: SpanKind.CLIENT, attributes: { 'http.request.method': request.method, 'url.full': `${origin}${path}`, 'server.address': hostOf(origin) } },
    parent,
  );
  spans.set(request, span);
  propagation.inject(trace.setSpan(parent, span), request, { set: (r, key, value) => r.addHeader(key, value) });
}

function onHeaders(message: unknown): void {
  const { request, response } = message as { request: object; response: { statusCode: number } };
  const span = spans.get(request);
  if (!span) return;
  span.setAttribute('http.response.status_code', response.statusCode);
  if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
}

function onEnd(message: unknown): void {
  const { request } = message as { request: object };
  spans.get(request)?.end();
  spans.delete(request);
}

function onError(message: unknown): void {
  const { request, error } = message as { request: object; error: unknown };
  const span = spans.get(request);
  if (!span) return;
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
  span.end();
  spans.delete(request);
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return origin;
  }
}

const CHANNELS: [string, (message: unknown) => void][] = [
  ['undici:request:create', onCreate],
  ['undici:request:headers', onHeaders],
  ['undici:request:trailers', onEnd],
  ['undici:request:error', onError],
];

/**
 * Upstream HTTP spans from undici's diagnostics channels, which both the undici package (the
 * chat service's upstream pools) and Node's own `fetch` publish to: one CLIENT span per request
 * made inside a traced context, ended when the body has been read, with `traceparent` added to
 * the request so an upstream that traces joins the trace. Subscribed only while tracing is on.
 */
export function traceHttpClients(): () => void {
  for (const [name, fn] of CHANNELS) subscribe(name, fn);
  return () => {
    for (const [name, fn] of CHANNELS) unsubscribe(name, fn);
  };
}
