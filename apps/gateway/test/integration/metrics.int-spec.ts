import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, NatsConnection } from 'nats';
import { KEYS } from '@svc/contracts';
import { serviceMigrationsDir } from '@svc/database';
import { RpcClient } from '@svc/messaging';
import { createTestDatabase, freePort, KeysBillingStack, startFakeOpenAiUpstream, startKeysBillingStack } from '@svc/testing';
import { requestApi } from './support/chat-http';

/** Two text models proxied to a fake upstream (8 completion tokens each); `metrics-limited` allows 1 request a minute. */
const CATALOG = `
models:
  - id: metrics-text
    name: Metrics test model
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${METRICS_TEST_UPSTREAM_URL}", model: fake-model, timeoutMs: 10000 }
    traits: [default]
    pricing: { input: { usd: 0.5, diem: 0.5 }, output: { usd: 2, diem: 2 } }
    availableContextTokens: 8192
    maxCompletionTokens: 64
  - id: metrics-limited
    name: Metrics test model (limited)
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${METRICS_TEST_UPSTREAM_URL}", model: fake-model, timeoutMs: 10000 }
    pricing: { input: { usd: 0.5, diem: 0.5 }, output: { usd: 2, diem: 2 } }
    availableContextTokens: 8192
    maxCompletionTokens: 64
`;

const PROMPT = 'The secret prompt words never appear in metrics';

/** `name{labels} value` lines of a scrape, by the name and labels as written. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.indexOf('}'));
    if (Object.entries(labels).every(([k, v]) => inner.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  let stack: KeysBillingStack;
  let nc: NatsConnection;
  let api: string;
  let gatewayMetrics: string;
  let chatMetrics: string;
  let dir: string;

  const chat = (key: string, model: string) =>
    requestApi(api, '/chat/completions', { key, body: { model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 16 } });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-metrics-'));
    writeFileSync(path.join(dir, 'catalog.yaml'), CATALOG);
    const upstream = await startFakeOpenAiUpstream({ completionTokens: 8, recordLimit: 0 });
    stack = await startKeysBillingStack('gwmetrics');
    stack.onStop(() => upstream.close());
    const chatDb = await createTestDatabase('gwmetricschat', { migrationsDir: serviceMigrationsDir('chat') });
    stack.onStop(() => chatDb.drop());
    const env = { SVC_CATALOG_PATH: path.join(dir, 'catalog.yaml'), METRICS_TEST_UPSTREAM_URL: upstream.baseUrl };
    const [port, healthPort] = await Promise.all([freePort(), freePort()]);
    const started = [
      stack.start('chat', 'apps/chat/src/main.ts', { ...env, CHAT_DATABASE_URL: chatDb.url, CHAT_MIGRATE_ON_BOOT: 'false', HEALTH_PORT: String(healthPort) }),
      stack.start('gateway', 'apps/gateway/src/main.ts', {
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        RATE_LIMIT_GLOBAL_JSON: JSON.stringify({ 'metrics-limited': { rpm: 1 } }),
        // The key without credit is blocked after its second 402.
        ABUSE_MAX_FAILURES: '1',
      }),
    ];
    await Promise.all([stack.ready(120_000), started[0].waitFor('chat service ready', 120_000), started[1].waitFor('gateway listening', 120_000)]);
    api = `http://127.0.0.1:${port}/api/v1`;

    // A second account with no credit: its requests are refused with 402.
    nc = await connect({ servers: stack.natsUrl });
    stack.onStop(() => nc.close());
    const rpc = new RpcClient(nc, 10_000);
    const { accountId } = await rpc.send(KEYS.CREATE_ACCOUNT, { name: 'metrics test, no credit' });
    const broke = await rpc.send(KEYS.CREATE, {
      accountId,
      apiKeyType: 'INFERENCE',
      description: 'metrics test',
      expiresAt: null,
      consumptionLimits: { usd: null, diem: null },
      limitPeriod: 'EPOCH',
      modelPrivacy: 'ALL',
    });

    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await chat(stack.adminKey, 'metrics-text')).status);
    for (let i = 0; i < 3; i++) statuses.push((await chat(broke.apiKey, 'metrics-text')).status);
    statuses.push((await chat(stack.adminKey, 'metrics-limited')).status);
    statuses.push((await chat(stack.adminKey, 'metrics-limited')).status);
    expect(statuses).toEqual([200, 200, 200, 402, 402, 429, 200, 429]);

    const scrape = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toContain('text/plain');
    gatewayMetrics = await scrape.text();
    const service = await fetch(`http://127.0.0.1:${healthPort}/metrics`);
    expect(service.status).toBe(200);
    chatMetrics = await service.text();
  });

  afterAll(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts requests by route pattern, model and status, with their latency', () => {
    const route = '/api/v1/chat/completions';
    const count = (model: string, status: string) => sample(gatewayMetrics, 'svc_gateway_requests_total', { route, method: 'POST', model, status });
    expect(count('metrics-text', '200')).toBe(3);
    expect(count('metrics-text', '402')).toBe(2);
    // The third request of the key without credit: its abuse block, decided while it was admitted.
    expect(count('metrics-text', '429')).toBe(1);
    expect(count('metrics-limited', '200')).toBe(1);
    expect(count('metrics-limited', '429')).toBe(1);
    expect(sample(gatewayMetrics, 'svc_gateway_request_duration_seconds_count', { route, model: 'metrics-text', status: '200' })).toBe(3);
    expect(sample(gatewayMetrics, 'svc_gateway_request_duration_seconds_bucket', { route, model: 'metrics-text', status: '200', le: '+Inf' })).toBe(3);
  });

  it('counts tokens in and out, credit held and charged, and the 402, 429 and abuse-block refusals', () => {
    expect(sample(gatewayMetrics, 'svc_gateway_tokens_total', { model: 'metrics-text', direction: 'out' })).toBe(24);
    expect(sample(gatewayMetrics, 'svc_gateway_tokens_total', { model: 'metrics-text', direction: 'in' })).toBeGreaterThan(0);
    expect(sample(gatewayMetrics, 'svc_gateway_credit_held_total', { model: 'metrics-text', currency: 'USD' })).toBeGreaterThan(0);
    // 8 output tokens at 2 USD per million, 3 times, plus the prompts at 0.5 USD per million.
    const charged = sample(gatewayMetrics, 'svc_gateway_credit_charged_total', { model: 'metrics-text', currency: 'USD' })!;
    expect(charged).toBeGreaterThan((3 * 8 * 2) / 1e6);
    expect(charged).toBeLessThan(0.001);
    expect(sample(gatewayMetrics, 'svc_gateway_refusals_total', { reason: 'insufficient_balance', model: 'metrics-text' })).toBe(2);
    expect(sample(gatewayMetrics, 'svc_gateway_refusals_total', { reason: 'abuse_blocked', model: '' })).toBe(1);
    expect(sample(gatewayMetrics, 'svc_gateway_refusals_total', { reason: 'rate_limited', model: 'metrics-limited' })).toBe(1);
    expect(sample(gatewayMetrics, 'svc_gateway_refusals_total', { reason: 'rate_limited', model: 'metrics-text' })).toBeUndefined();
  });

  it('times NATS calls and reports the Node process (event-loop lag, heap)', () => {
    expect(sample(gatewayMetrics, 'svc_gateway_nats_rpc_duration_seconds_count', { subject: 'keys.cmd.verify.v1', outcome: 'ok' })).toBeGreaterThan(0);
    expect(gatewayMetrics).toMatch(/^svc_gateway_nodejs_eventloop_lag_seconds \d/m);
    expect(gatewayMetrics).toMatch(/^svc_gateway_nodejs_heap_size_used_bytes \d/m);
  });

  it('never labels with a prompt, a key or an account', () => {
    expect(gatewayMetrics).not.toContain('secret prompt');
    expect(gatewayMetrics).not.toContain(stack.adminKey);
    expect(gatewayMetrics).not.toMatch(/account/i);
  });

  it("serves a service's metrics on its HEALTH_PORT: its time per model request and its Node process", () => {
    expect(sample(chatMetrics, 'svc_engine_request_duration_seconds_count', { model: 'metrics-text' })).toBe(3);
    expect(chatMetrics).toMatch(/^svc_chat_nodejs_eventloop_lag_seconds \d/m);
    expect(chatMetrics).not.toContain('secret prompt');
  });
});
