import { context, propagation, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ATTR_REQUEST_ID, TRACING, tracer } from './tracing-state';

const spans = new WeakMap<FastifyRequest, Span>();

/**
 * One SERVER span per gateway request (`POST /api/v1/chat/completions`, by route pattern, never
 * the raw URL), active while its handler runs so every NATS call it makes is a child. It starts
 * at `onRequest`, becomes the active context at `preHandler` (after the body is read: Fastify
 * parses bodies from socket events, outside the request's async context) and ends at
 * `onResponse` (a stream's end). Attributes: method, route, status, request id; nothing of the
 * body. Registers nothing when tracing is off.
 */
export function registerRequestSpans(fastify: FastifyInstance): void {
  if (!TRACING.on) return;
  fastify.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const parent = propagation.extract(context.active(), request.headers);
    const span = tracer().startSpan(
      `${request.method} ${route}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': route, [ATTR_REQUEST_ID]: request.id } },
      parent,
    );
    spans.set(request, span);
    done();
  });
  fastify.addHook('preHandler', (request, _reply, done) => {
    const span = spans.get(request);
    if (!span) return done();
    context.with(trace.setSpan(context.active(), span), done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    end(request, undefined);
    done();
  });
}

function end(request: FastifyRequest, status: number | undefined): void {
  const span = spans.get(request);
  if (!span) return;
  spans.delete(request);
  if (status === undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: 'client aborted' });
  else {
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
