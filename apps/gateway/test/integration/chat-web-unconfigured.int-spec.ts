import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, RequestListener } from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { connect, NatsConnection } from 'nats';
import { KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { createTestDatabase, freePort, PrivateNats, PrivateRedis, startFakeBilling, startPrivateNats, startPrivateRedis } from '@svc/testing';
import { serviceMigrationsDir } from '@svc/database';
import { ServiceProcess, startService } from './support/processes';

/**
 * The web flags on a deployment without a search provider (no SEARXNG_URL, no Brave key), through
 * a gateway process: `enable_web_search: "on"` is a 400 saying web search is not configured, as
 * an HTTP error for streams too, before the model runs; `"auto"` and the other flags proceed;
 * scraping still works (it needs no provider). The upstream is a local OpenAI-compatible server.
 */
const CATALOG = `
models:
  - id: plain
    name: Upstream
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${WEB_UPSTREAM_URL}", model: plain-upstream, timeoutMs: 10000 }
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    availableContextTokens: 8192
    maxCompletionTokens: 512
    capabilities: { supportsXSearch: false }
`;
const PAGE_TEXT = 'The ferry to the outer islands leaves at seven every morning except on holidays.';

let api: string;
let inferenceKey: string;
let pagesPort: number;
const prompts: Array<Array<{ role: string; content: string }>> = [];
const stops: Array<() => Promise<unknown> | unknown> = [];
let processes: ServiceProcess[] = [];

async function serve(handler: RequestListener): Promise<number> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-chat-web-off-'));
  stops.push(() => rmSync(dir, { recursive: true, force: true }));
  const catalogPath = path.join(dir, 'catalog.yaml');
  writeFileSync(catalogPath, CATALOG);
  const nats: PrivateNats = await startPrivateNats();
  stops.push(() => nats.stop());
  const redis: PrivateRedis = await startPrivateRedis();
  stops.push(() => redis.stop());
  const upstreamPort = await serve((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as { model: string; messages: Array<{ role: string; content: string }>; stream?: boolean };
      prompts.push(body.messages);
      const base = { id: 'up-1', created: 1, model: body.model };
      const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Hi [1]' }, finish_reason: 'stop' }], usage })}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi [1]' }, finish_reason: 'stop' }], usage }));
    });
  });
  pagesPort = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<html><head><title>Ferry times</title></head><body><article><h1>Ferry times</h1><p>${PAGE_TEXT}</p><p>${PAGE_TEXT}</p></article></body></html>`);
  });
  const [keysDb, chatDb] = await Promise.all([
    createTestDatabase('gwwebno_keys', { migrationsDir: serviceMigrationsDir('keys') }),
    createTestDatabase('gwwebno_chat', { migrationsDir: serviceMigrationsDir('chat') }),
  ]);
  stops.push(() => keysDb.drop(), () => chatDb.drop());
  const nc: NatsConnection = await connect({ servers: nats.url });
  stops.push(() => nc.close());
  stops.push(startFakeBilling(nc));

  const common = { NATS_URL: nats.url, REDIS_URL: redis.url, SVC_CATALOG_PATH: catalogPath, WEB_UPSTREAM_URL: `http://127.0.0.1:${upstreamPort}/v1` };
  const keys = startService('keys', 'apps/keys/src/main.ts', { ...common, KEYS_DATABASE_URL: keysDb.url, KEYS_MIGRATE_ON_BOOT: 'false' });
  const chat = startService('chat', 'apps/chat/src/main.ts', {
    ...common,
    CHAT_DATABASE_URL: chatDb.url,
    CHAT_MIGRATE_ON_BOOT: 'false',
    SVC_SYSTEM_PROMPT: '',
    LLAMA_THREADS: '1',
    SEARXNG_URL: '',
    BRAVE_SEARCH_API_KEY: '',
    OUTBOUND_ALLOWLIST: 'localhost',
  });
  const port = await freePort();
  const gateway = startService('gateway', 'apps/gateway/src/main.ts', { ...common, PORT: String(port), HOST: '127.0.0.1', RATE_LIMITS_ENABLED: 'false', ABUSE_PROTECTION_ENABLED: 'false' });
  processes = [gateway, chat, keys];
  await Promise.all([keys.waitFor('keys service ready', 90_000), chat.waitFor('chat service ready', 90_000), gateway.waitFor('gateway listening', 90_000)]);
  api = `http://127.0.0.1:${port}/api/v1`;
  const rpc = new RpcClient(nc, 10_000);
  const { accountId } = await rpc.send(KEYS.CREATE_ACCOUNT, { name: 'chat web off test' });
  inferenceKey = (
    await rpc.send(KEYS.CREATE, { accountId, apiKeyType: 'INFERENCE', description: 'web', expiresAt: null, consumptionLimits: { usd: null, diem: null }, limitPeriod: 'EPOCH', modelPrivacy: 'ALL' })
  ).apiKey;
}, 180_000);

afterAll(async () => {
  for (const p of processes) await p.stop().catch(() => undefined);
  for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
}, 60_000);

async function chat(svc: Record<string, unknown>, over: Record<string, unknown> = {}) {
  const res = await fetch(`${api}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${inferenceKey}` },
    body: JSON.stringify({ model: 'plain', messages: [{ role: 'user', content: 'What is the latest news?' }], max_tokens: 16, svc_parameters: svc, ...over }),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), text, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined };
}

describe('web flags without a search provider', () => {
  it.each([false, true])('enable_web_search "on" is a 400 saying web search is not configured (stream %s), before the model runs', async (stream) => {
    const before = prompts.length;
    const answer = await chat({ enable_web_search: 'on' }, { stream });
    expect(answer.status).toBe(400);
    expect(answer.contentType).toMatch(/application\/json/);
    expect(answer.body.error).toMatch(/web search is not configured/i);
    expect(answer.body.details.svc_parameters.enable_web_search._errors[0]).toMatch(/not configured/);
    expect(prompts.length).toBe(before);
  });

  it('the suffix form is refused the same way', async () => {
    expect((await chat({}, { model: 'plain:enable_web_search=on' })).status).toBe(400);
  });

  it('"auto" and the output flags proceed without search: no context, text untouched', async () => {
    const answer = await chat({ enable_web_search: 'auto', enable_web_citations: true, include_search_results_in_stream: true, return_search_results_as_documents: true });
    expect(answer.status).toBe(200);
    expect(prompts.at(-1)).toEqual([{ role: 'user', content: 'What is the latest news?' }]);
    expect(answer.body.choices[0].message).toEqual({ role: 'assistant', content: 'Hi [1]', refusal: null });
    expect(answer.body.svc_parameters).not.toHaveProperty('web_search_citations');
  });

  it('scraping needs no provider', async () => {
    const answer = await chat({ enable_web_scraping: true, enable_web_citations: true }, { messages: [{ role: 'user', content: `When does it leave? http://localhost:${pagesPort}/ferry` }] });
    expect(answer.status).toBe(200);
    expect(prompts.at(-1)?.[0].content).toContain(PAGE_TEXT);
    expect(answer.body.choices[0].message.content).toBe('Hi ^1^');
  });
});
