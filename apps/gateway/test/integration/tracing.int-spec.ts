import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { startFakeOpenAiUpstream } from '@svc/testing';
import { ChatStack, startChatStack } from './support/chat-stack';

/**
 * One chat request through gateway, keys and chat processes with OTEL_EXPORTER_OTLP_ENDPOINT set,
 * received by a small OTLP/HTTP (JSON) collector in the test: one trace from the gateway's request
 * span through the NATS calls to the chat handler, its engine and the upstream HTTP call, linked
 * parent to child across processes, the request id on the spans, and no prompt or output text in
 * any attribute. The collector is a stand-in for an outside system (an OpenTelemetry Collector).
 */
const PROMPT = 'confidential-prompt-words about the merger';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

interface ReceivedSpan extends OtlpSpan {
  service: string;
}

/** Collects the spans of every `POST /v1/traces` (OTLP/HTTP JSON, gzip or not). */
async function startCollector(): Promise<{ url: string; spans: ReceivedSpan[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      let body = Buffer.concat(parts);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      if (req.url === '/v1/traces' && String(req.headers['content-type']).startsWith('application/json')) {
        const doc = JSON.parse(body.toString()) as {
          resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const rs of doc.resourceSpans) {
          const service = String(rs.resource.attributes?.find((a) => a.key === 'service.name')?.value.stringValue);
          for (const ss of rs.scopeSpans) for (const span of ss.spans) spans.push({ ...span, service });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, close: () => new Promise((r) => server.close(() => r())) };
}

const attr = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value && Object.values(value)[0];
};

async function until<T>(what: string, find: () => T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let stack: ChatStack;
let collector: Awaited<ReturnType<typeof startCollector>>;
let upstream: Awaited<ReturnType<typeof startFakeOpenAiUpstream>>;

beforeAll(async () => {
  collector = await startCollector();
  upstream = await startFakeOpenAiUpstream({ completionTokens: 6 });
  const catalog = `
models:
  - id: traced-model
    name: Traced model
    type: text
    engine: { kind: openai-compatible, baseUrl: "${upstream.baseUrl}", model: fake-model, timeoutMs: 10000 }
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
`;
  stack = await startChatStack({
    name: 'tracing',
    catalog,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '100' },
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await upstream?.close();
  await collector?.close();
}, 60_000);

it('traces one chat request from the gateway through NATS, the chat service and its engine to the upstream', async () => {
  const answer = await stack.request('/chat/completions', { body: { model: 'traced-model', messages: [{ role: 'user', content: PROMPT }], max_tokens: 6 } });
  expect(answer.status).toBe(200);
  const output = String(answer.body.choices[0].message.content);
  expect(output.length).toBeGreaterThan(0);
  const requestId = answer.headers.get('cf-ray');
  expect(requestId).toBeTruthy();

  const root = await until('the gateway request span', () =>
    collector.spans.find((s) => s.service === 'svc-gateway' && s.name === 'POST /api/v1/chat/completions' && attr(s, 'svc.request_id') === requestId),
  );
  expect(root.kind).toBe(2); // SERVER
  expect(attr(root, 'http.response.status_code')).toBe(200);
  expect(root.parentSpanId ?? '').toBe('');
  const inTrace = () => collector.spans.filter((s) => s.traceId === root.traceId);
  const byId = (id: string | undefined) => inTrace().find((s) => s.spanId === id);

  // chat -> engine -> upstream HTTP, and the upstream was told the trace.
  const engine = await until('the engine span', () => inTrace().find((s) => s.name === 'engine traced-model'));
  expect(engine).toMatchObject({ service: 'svc-chat' });
  expect(attr(engine, 'svc.engine.kind')).toBe('upstream');
  const http = await until('the upstream HTTP span', () => inTrace().find((s) => s.service === 'svc-chat' && s.kind === 3 && s.parentSpanId === engine.spanId));
  expect(attr(http, 'url.full')).toBe(`${upstream.url}/v1/chat/completions`);
  expect(attr(http, 'http.response.status_code')).toBe(200);
  const traceparent = String(upstream.upstream.requests.at(-1)?.headers.traceparent);
  expect(traceparent).toBe(`00-${root.traceId}-${http.spanId}-01`);

  // gateway -> chat over NATS: the engine runs under the chat handler's span, whose parent is the
  // gateway's client span for that call, a child of the request span.
  const handler = ancestors(engine, byId).find((s) => s.name.startsWith('process chat.'));
  expect(handler).toMatchObject({ service: 'svc-chat', kind: 2 });
  expect(attr(handler!, 'svc.request_id')).toBe(requestId);
  expect(attr(handler!, 'messaging.system')).toBe('nats');
  const send = byId(handler!.parentSpanId);
  expect(send).toMatchObject({ service: 'svc-gateway', kind: 3, name: handler!.name.replace('process ', 'send ') });
  expect(ancestors(send!, byId).map((s) => s.spanId)).toContain(root.spanId);

  // The key check went to the keys service in the same trace.
  const keys = await until('the keys handler span', () => inTrace().find((s) => s.service === 'svc-keys' && s.name.startsWith('process keys.')));
  expect(ancestors(keys, byId).map((s) => s.spanId)).toContain(root.spanId);

  // Never the prompt or the output, in any attribute of any span.
  const everything = JSON.stringify(collector.spans);
  expect(everything).not.toContain('confidential-prompt-words');
  expect(everything).not.toContain('merger');
  for (const word of output.split(/\s+/).filter((w) => w.length > 3)) expect(everything).not.toContain(word);
});

it("traces a streamed chat request: the chat handler is in the request's trace, started within the request span", async () => {
  const answer = await stack.request('/chat/completions', {
    body: { model: 'traced-model', stream: true, messages: [{ role: 'user', content: PROMPT }], max_tokens: 6 },
  });
  expect(answer.status).toBe(200);
  expect(answer.text).toContain('data: [DONE]');
  const requestId = answer.headers.get('cf-ray');
  const root = await until('the streamed request span', () =>
    collector.spans.find((s) => s.name === 'POST /api/v1/chat/completions' && attr(s, 'svc.request_id') === requestId),
  );
  const handler = await until('the chat handler span', () =>
    collector.spans.find((s) => s.traceId === root.traceId && s.service === 'svc-chat' && s.name.startsWith('process chat.')),
  );
  expect(attr(handler, 'svc.request_id')).toBe(requestId);
  // The request span covers the handler's start (its end may follow the last frame's acknowledgement).
  expect(BigInt(handler.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(root.startTimeUnixNano));
  expect(BigInt(root.endTimeUnixNano)).toBeGreaterThan(BigInt(handler.startTimeUnixNano));
  expect(JSON.stringify(collector.spans)).not.toContain('confidential-prompt-words');
});

/** The span's parent, its parent's parent, ... as far as the trace has them. */
function ancestors(span: OtlpSpan, byId: (id: string | undefined) => OtlpSpan | undefined): OtlpSpan[] {
  const found: OtlpSpan[] = [];
  for (let at = byId(span.parentSpanId); at && found.length < 50; at = byId(at.parentSpanId)) found.push(at);
  return found;
}
