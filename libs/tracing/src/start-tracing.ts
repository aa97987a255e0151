import { context, propagation, trace } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '@svc/config';
import { traceHttpClients } from './http-client-spans';
import { TRACING } from './tracing-state';
import { tracingEnvSchema } from './tracing-env';

export interface TracingOptions {
  env?: NodeJS.ProcessEnv;
  /** Tests: spans go here, one by one, instead of to an OTLP collector. */
  exporter?: SpanExporter;
}

let provider: { shutdown(): Promise<void> } | undefined;
let stopHttpClients: (() => void) | undefined;

/**
 * Turns tracing on for this process when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces-only
 * variant) is set, or a test passes an exporter, and resolves true; otherwise leaves it off (the
 * SDK is not even loaded) and resolves false. Call once, first thing in a process's main. Spans
 * leave in batches over OTLP/HTTP (JSON). A bad endpoint fails at boot, naming the variable.
 */
export async function startTracing(service: string, options: TracingOptions = {}): Promise<boolean> {
  const env = loadConfig(service, tracingEnvSchema, options.env ?? process.env);
  if (provider) return true;
  if (!options.exporter && !env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return false;
  const { registerProvider } = await import('./tracing-sdk');
  provider = registerProvider(env.OTEL_SERVICE_NAME ?? `svc-${service}`, options.exporter);
  stopHttpClients = traceHttpClients();
  TRACING.on = true;
  return true;
}

/** Sends the spans still buffered and turns tracing off (at shutdown; a no-op when off). */
export async function stopTracing(): Promise<void> {
  const current = provider;
  if (!current) return;
  provider = undefined;
  TRACING.on = false;
  stopHttpClients?.();
  await current.shutdown().catch(() => undefined);
  // So that a later startTracing (a test's) may register again.
  trace.disable();
  context.disable();
  propagation.disable();
}
