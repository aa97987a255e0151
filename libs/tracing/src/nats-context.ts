import { Context, context, propagation, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import { MsgHdrs } from 'nats';

const setter: TextMapSetter<MsgHdrs> = {
  set: (headers, key, value) => headers.set(key, value),
};

const getter: TextMapGetter<MsgHdrs | undefined> = {
  get: (headers, key) => headers?.get(key) || undefined,
  keys: (headers) => (headers ? headers.keys() : []),
};

/** Writes `ctx` (W3C `traceparent`/`tracestate`) into a NATS message's headers. */
export function injectTraceContext(headers: MsgHdrs, ctx: Context = context.active()): void {
  propagation.inject(ctx, headers, setter);
}

/** The caller's context carried by a NATS message's headers (the root context when none). */
export function traceContextOf(headers: MsgHdrs | undefined): Context {
  return propagation.extract(context.active(), headers, getter);
}
