import { z } from 'zod';

const httpUrl = z.string().refine((v) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}, 'must be an http(s) URL, e.g. http://otel-collector:4318');

/**
 * The OpenTelemetry variables this platform reads itself (the SDK reads the other OTEL_* ones,
 * e.g. OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_SCHEDULE_DELAY, OTEL_TRACES_SAMPLER).
 */
export const tracingEnvSchema = z.object({
  /** OTLP/HTTP collector base URL (spans go to `<url>/v1/traces`); unset or empty: tracing off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess((v) => (v === '' ? undefined : v), httpUrl.optional()),
  /** Traces-only endpoint (the full URL), as the OTLP specification defines it. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.preprocess((v) => (v === '' ? undefined : v), httpUrl.optional()),
  /** Overrides the service name a process reports (default: the app's name). */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
});

export type TracingEnv = z.infer<typeof tracingEnvSchema>;
