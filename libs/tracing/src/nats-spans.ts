import { context, Context, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { MsgHdrs } from 'nats';
import { injectTraceContext, traceContextOf } from './nats-context';
import { ATTR_REQUEST_ID, TRACING, tracer } from './tracing-state';

// OpenTelemetry messaging conventions (incubating names, written out so they cannot drift).
const MESSAGING_SYSTEM = 'messaging.system';
const MESSAGING_DESTINATION = 'messaging.destination.name';
const MESSAGING_OPERATION = 'messaging.operation.type';

/** The client side of one NATS request: a span whose context travels in the request's headers. */
export interface RpcSpan {
  /** Puts this span's context into the request's headers. */
  inject(headers: MsgHdrs): void;
  /** Ends it; `failure` names the outcome of a failed call (timeout, unavailable, error). */
  end(failure?: string): void;
}

/** Starts the span of one call on `subject`; undefined when tracing is off. */
export function startRpcSpan(subject: string, requestId: string | undefined): RpcSpan | undefined {
  if (!TRACING.on) return undefined;
  const span = tracer().startSpan(`send ${subject}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      [MESSAGING_SYSTEM]: 'nats',
      [MESSAGING_DESTINATION]: subject,
      [MESSAGING_OPERATION]: 'send',
      ...(requestId ? { [ATTR_REQUEST_ID]: requestId } : {}),
    },
  });
  const ctx = trace.setSpan(context.active(), span);
  return {
    inject: (headers) => injectTraceContext(headers, ctx),
    end: (failure) => {
      if (failure) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
      span.end();
    },
  };
}

/** Carries the active context (if tracing is on) in an event's headers; events get no span of their own. */
export function injectActiveContext(headers: MsgHdrs): void {
  if (TRACING.on) injectTraceContext(headers);
}

/** The server side: one span per handled message, a child of the caller's span from the headers. */
export interface HandlerSpan {
  readonly ctx: Context;
  /** Runs `fn` with this span active, so the calls it makes are its children. */
  run<T>(fn: () => T): T;
  /** `done` wrapped so that it ends the span first (once). */
  ending(done: () => void): () => void;
  fail(message: string): void;
}

const NOTHING = () => undefined;

/** Starts the span of handling one message on `subject`; undefined when tracing is off. */
export function startHandlerSpan(subject: string, headers: MsgHdrs | undefined, requestIdHeader: string): HandlerSpan | undefined {
  if (!TRACING.on) return undefined;
  const requestId = headers?.get(requestIdHeader);
  const parent = traceContextOf(headers);
  const span: Span = tracer().startSpan(
    `process ${subject}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [MESSAGING_SYSTEM]: 'nats',
        [MESSAGING_DESTINATION]: subject,
        [MESSAGING_OPERATION]: 'process',
        ...(requestId ? { [ATTR_REQUEST_ID]: requestId } : {}),
      },
    },
    parent,
  );
  const ctx = trace.setSpan(parent, span);
  let ended = false;
  return {
    ctx,
    run: (fn) => context.with(ctx, fn),
    ending: (done) => () => {
      if (!ended) {
        ended = true;
        span.end();
      }
      done();
    },
    fail: (message) => span.setStatus({ code: SpanStatusCode.ERROR, message }),
  };
}

/**
 * Handles one message of a plain NATS subscription (billing's hot-path subjects) inside its
 * handler span; with tracing off, just `handle()`.
 */
export function traceHandler<T>(subject: string, headers: MsgHdrs | undefined, requestIdHeader: string, handle: () => Promise<T>): Promise<T> {
  const span = startHandlerSpan(subject, headers, requestIdHeader);
  if (!span) return handle();
  return span.run(handle).finally(span.ending(NOTHING));
}
