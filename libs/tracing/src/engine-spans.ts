import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { TRACING, tracer } from './tracing-state';

/**
 * Runs one engine call (a generation, an image, a transcription) inside an `engine <model>` span,
 * so the upstream HTTP calls it makes are its children; with tracing off, just `call()`.
 * Attributes name the model and the engine kind only: never the prompt or the output.
 */
export function traceEngine<T>(model: string, engineKind: string, call: () => Promise<T>): Promise<T> {
  if (!TRACING.on) return call();
  const span = tracer().startSpan(`engine ${model}`, { kind: SpanKind.INTERNAL, attributes: { 'svc.model': model, 'svc.engine.kind': engineKind } });
  return context.with(trace.setSpan(context.active(), span), call).then(
    (result) => {
      span.end();
      return result;
    },
    (err: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
      span.end();
      throw err;
    },
  );
}
