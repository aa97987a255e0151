import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, SimpleSpanProcessor, SpanExporter } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/**
 * The OpenTelemetry SDK, loaded only when tracing is turned on (start-tracing.ts imports this
 * module lazily: requiring the SDK and the exporter takes 0.1-1 s of start-up on these machines).
 * Registers the provider globally: the AsyncLocalStorage context manager and the W3C propagator.
 */
export function registerProvider(serviceName: string, exporter?: SpanExporter): { shutdown(): Promise<void> } {
  const processor = exporter ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }), spanProcessors: [processor] });
  provider.register();
  return provider;
}
