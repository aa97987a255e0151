import { context, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { createServer, IncomingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';
import { headers as natsHeaders } from 'nats';
import { injectActiveContext, startHandlerSpan, startRpcSpan, startTracing, stopTracing, traceEngine, traceHandler, TRACING, tracer } from './index';

/** An in-process exporter receives every span as it ends (SimpleSpanProcessor). */
const exporter = new InMemorySpanExporter();
const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const named = (name: string) => spans().find((s) => s.name === name)!;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('tracing off', () => {
  it('stays off without OTEL_EXPORTER_OTLP_ENDPOINT, and the hot-path hooks make nothing', async () => {
    await expect(startTracing('test', { env: {} })).resolves.toBe(false);
    expect(TRACING.on).toBe(false);
    expect(startRpcSpan('keys.cmd.verify.v1', 'req-1')).toBeUndefined();
    expect(startHandlerSpan('keys.cmd.verify.v1', natsHeaders(), 'svc-request-id')).toBeUndefined();
    const h = natsHeaders();
    injectActiveContext(h);
    expect(h.has('traceparent')).toBe(false);
    await expect(traceEngine('m', 'upstream', async () => 7)).resolves.toBe(7);
    await expect(traceHandler('s', undefined, 'svc-request-id', async () => 8)).resolves.toBe(8);
  });

  it('refuses an endpoint that is not an http(s) URL, naming the variable', async () => {
    await expect(startTracing('test', { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' } })).rejects.toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(TRACING.on).toBe(false);
  });
});

describe('tracing on (in-memory exporter)', () => {
  beforeAll(async () => {
    await expect(startTracing('test', { env: {}, exporter })).resolves.toBe(true);
  });
  afterAll(async () => {
    await stopTracing();
    expect(TRACING.on).toBe(false);
  });
  beforeEach(() => exporter.reset());

  it('links a NATS call to its handler through the message headers, with the request id on both', async () => {
    const root = tracer().startSpan('POST /api/v1/chat/completions', { kind: SpanKind.SERVER });
    const h = natsHeaders();
    h.set('svc-request-id', 'req-42');
    await context.with(trace.setSpan(context.active(), root), async () => {
      const call = startRpcSpan('chat.cmd.complete.v1', 'req-42')!;
      call.inject(h);
      // The service side, as if in another process: only the headers carry the context.
      await context.with(context.active(), async () => {
        const handler = startHandlerSpan('chat.cmd.complete.v1', h, 'svc-request-id')!;
        await handler.run(() => traceEngine('zoo-chat', 'embedded', async () => 'generated text'));
        handler.ending(() => undefined)();
      });
      call.end();
    });
    root.end();

    expect(h.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const send = named('send chat.cmd.complete.v1');
    const processSpan = named('process chat.cmd.complete.v1');
    const engine = named('engine zoo-chat');
    expect(send.kind).toBe(SpanKind.CLIENT);
    expect(processSpan.kind).toBe(SpanKind.SERVER);
    expect(parentOf(send)).toBe(root.spanContext().spanId);
    expect(parentOf(processSpan)).toBe(send.spanContext().spanId);
    expect(parentOf(engine)).toBe(processSpan.spanContext().spanId);
    expect(new Set(spans().map((s) => s.spanContext().traceId))).toEqual(new Set([root.spanContext().traceId]));
    expect(send.attributes['svc.request_id']).toBe('req-42');
    expect(processSpan.attributes['svc.request_id']).toBe('req-42');
    expect(processSpan.attributes['messaging.destination.name']).toBe('chat.cmd.complete.v1');
    expect(JSON.stringify(spans().map((s) => s.attributes))).not.toContain('generated text');
  });

  it('marks a failed call with its outcome and a handler span ends once', async () => {
    const call = startRpcSpan('billing.cmd.reserve.v1', undefined)!;
    call.end('timeout');
    const handler = startHandlerSpan('billing.cmd.reserve.v1', undefined, 'svc-request-id')!;
    const end = handler.ending(() => undefined);
    end();
    end();
    await expect(traceHandler('billing.cmd.settle.v1', undefined, 'svc-request-id', () => Promise.reject(new Error('nope')))).rejects.toThrow('nope');
    expect(named('send billing.cmd.reserve.v1').status).toMatchObject({ code: 2, message: 'timeout' });
    expect(spans().filter((s) => s.name === 'process billing.cmd.reserve.v1')).toHaveLength(1);
    expect(named('process billing.cmd.settle.v1')).toBeDefined();
  });

  it('traces upstream HTTP made with fetch under a span: child span, traceparent sent, no query string kept', async () => {
    const received = new Map<string, IncomingHttpHeaders>();
    const server = createServer((req, res) => {
      received.set(String(req.url).split('?')[0], req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await traceEngine('remote', 'upstream', async () => {
        const res = await fetch(`${origin}/v1/chat/completions?key=secret-in-query`, { method: 'POST', body: '{"prompt":"hidden words"}' });
        await res.text();
      });
      // Untraced calls (no active span) make no span.
      await (await fetch(`${origin}/health`)).text();
    } finally {
      await new Promise((r) => server.close(r));
    }
    const engine = named('engine remote');
    const http = spans().find((s) => s.kind === SpanKind.CLIENT)!;
    expect(parentOf(http)).toBe(engine.spanContext().spanId);
    expect(http.attributes['url.full']).toBe(`${origin}/v1/chat/completions`);
    expect(http.attributes['http.response.status_code']).toBe(200);
    expect(received.get('/health')?.traceparent).toBeUndefined();
    expect(received.get('/v1/chat/completions')?.traceparent).toBe(`00-${http.spanContext().traceId}-${http.spanContext().spanId}-01`);
    expect(spans().filter((s) => s.kind === SpanKind.CLIENT)).toHaveLength(1);
    const all = JSON.stringify(spans().map((s) => [s.name, s.attributes]));
    expect(all).not.toContain('secret-in-query');
    expect(all).not.toContain('hidden words');
  });
});
