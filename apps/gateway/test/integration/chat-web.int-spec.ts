import { RequestListener } from 'node:http';
import { Msg } from 'nats';
import { BILLING, ReserveRequest, SettleRequest } from '@svc/contracts';
import { ChatStack, startChatStack } from './support/chat-stack';
import { ApiAnswer, chunksOf, LocalServer, startLocalServer, streamedText } from './support/chat-http';
import { recordingUpstream, UpstreamCall } from './support/recording-upstream';

/**
 * Web search, scraping and citations inside POST /chat/completions (docs/retrieval.md), through a
 * gateway process: private NATS and Redis, the keys and chat services, a local SearXNG-compatible
 * server, local pages (allowlisted as `localhost` only, so 127.0.0.1 stays refused by the SSRF
 * guard), and a local OpenAI-compatible upstream that records the prompt it gets and answers with
 * bracket citations, streamed two characters per chunk so markers split across chunks. Billing is
 * the fake one; its settlements are recorded to check the billed searches and scrapes.
 */
const SERVICE_PROMPT = 'SVC PROMPT';
const ANSWER = 'Sky is blue [1] and see (2).<sup>1</sup> Done';
const CITED = 'Sky is blue ^1^ and see ^2^.^1^ Done';
const PAGE_TEXT = 'Lanterns of the northern harbour were lit with whale oil until the year of the great storm.';

const CATALOG = `
models:
  - id: webby
    name: Web upstream
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${WEB_UPSTREAM_URL}", model: webby-upstream, timeoutMs: 10000 }
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 }, web_search: { usd: 0.005, diem: 0.005 }, web_scrape: { usd: 0.002, diem: 0.002 } }
    availableContextTokens: 8192
    maxCompletionTokens: 512
    capabilities: { supportsFunctionCalling: true, supportsXSearch: false }
  - id: small-ctx
    name: Small context upstream
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${WEB_UPSTREAM_URL}", model: small-upstream, timeoutMs: 10000 }
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    availableContextTokens: 700
    maxCompletionTokens: 200
    capabilities: { supportsXSearch: false }
`;

const RESULTS = [1, 2, 3].map((i) => ({
  title: `Result ${i}`,
  url: `https://example.com/${i}`,
  content: `Snippet number ${i} about the sky. ${'Blue light scatters more than red light in the air. '.repeat(4)}`,
  date: '',
}));

let stack: ChatStack;
let pagesPort: number;
const calls: UpstreamCall[] = [];
const queries: string[] = [];
const settlements: SettleRequest[] = [];
const reservations: ReserveRequest[] = [];
const servers: LocalServer[] = [];

async function serve(handler: RequestListener): Promise<number> {
  const server = await startLocalServer(handler);
  servers.push(server);
  return server.port;
}

beforeAll(async () => {
  const upstreamPort = await serve(recordingUpstream(calls, { answer: ANSWER, chunkSize: 2, promptTokens: 100, completionTokens: 12 }));
  const searxPort = await serve((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    queries.push(url.searchParams.get('q') ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ query: url.searchParams.get('q'), results: RESULTS.map(({ date: _, ...r }) => r) }));
  });
  pagesPort = await serve((req, res) => {
    if (req.url === '/lanterns') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<html><head><title>Harbour lanterns</title></head><body><nav>menu</nav><article><h1>Harbour lanterns</h1><p>${PAGE_TEXT}</p><p>${PAGE_TEXT}</p></article></body></html>`,
      );
      return;
    }
    res.writeHead(404).end('no');
  });
  stack = await startChatStack({
    name: 'web',
    catalog: CATALOG,
    env: { WEB_UPSTREAM_URL: `http://127.0.0.1:${upstreamPort}/v1` },
    chatEnv: { SVC_SYSTEM_PROMPT: SERVICE_PROMPT, SEARXNG_URL: `http://127.0.0.1:${searxPort}`, OUTBOUND_ALLOWLIST: 'localhost' },
  });
  // Plain subscriptions see every billing message next to the fake's queue group.
  const record = <T>(subject: string, into: T[]) =>
    stack.nc.subscribe(subject, { callback: (_e, msg: Msg) => into.push((JSON.parse(new TextDecoder().decode(msg.data)) as { data: T }).data) });
  record(BILLING.SETTLE, settlements);
  // Services send their settlements in batches.
  stack.nc.subscribe(BILLING.SETTLE_BATCH, {
    callback: (_e, msg: Msg) => settlements.push(...(JSON.parse(new TextDecoder().decode(msg.data)) as { data: { items: SettleRequest[] } }).data.items),
  });
  record(BILLING.RESERVE, reservations);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  for (const server of servers) await server.close();
}, 60_000);

const chat = (svc: Record<string, unknown>, over: Record<string, unknown> = {}): Promise<ApiAnswer> =>
  stack.request('/chat/completions', {
    body: { model: 'webby', messages: [{ role: 'user', content: 'What is the latest news about the sky?' }], max_tokens: 64, svc_parameters: svc, ...over },
  });

const systemOf = (call: UpstreamCall) => (call.messages[0].role === 'system' ? call.messages[0].content : '');
const lastCall = () => calls[calls.length - 1];

/** The chat service's own settlement of the request (it arrives just after the response). */
async function settlementOf(answer: ApiAnswer): Promise<SettleRequest> {
  const requestId = answer.headers.get('cf-ray');
  const reservation = reservations.find((r) => r.requestId === requestId);
  if (!reservation) throw new Error(`no reservation for ${requestId}`);
  for (let i = 0; i < 100; i++) {
    const settled = settlements.find((s) => s.reservationId === reservation.reservationId && s.source === 'service');
    if (settled) return settled;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no settlement from the chat service');
}

describe('enable_web_search', () => {
  it('"on" searches with the last user message, puts the results into the system prompt, echoes and bills them', async () => {
    const before = queries.length;
    const answer = await chat({ enable_web_search: 'on' });
    expect(answer.status).toBe(200);
    expect(queries.slice(before)).toEqual(['What is the latest news about the sky?']);
    const system = systemOf(lastCall());
    expect(system.startsWith(`${SERVICE_PROMPT}\n\n`)).toBe(true);
    for (const r of RESULTS) expect(system).toContain(r.content);
    expect(system).toContain('[1] Result 1');
    expect(lastCall().messages.at(-1)).toEqual({ role: 'user', content: 'What is the latest news about the sky?' });
    expect(answer.body.svc_parameters.enable_web_search).toBe('on');
    expect(answer.body.svc_parameters.web_search_citations).toEqual(RESULTS);
    const settled = await settlementOf(answer);
    expect(settled.outcome).toBe('completed');
    expect(settled.usage).toMatchObject({ kind: 'text', promptTokens: 100, completionTokens: 12, webSearches: 1 });
    expect(settled.usage).not.toHaveProperty('webScrapes');
  });

  it('"auto" searches only when the message asks for fresh facts', async () => {
    const before = queries.length;
    const plain = await chat({ enable_web_search: 'auto' }, { messages: [{ role: 'user', content: 'Write a haiku about rain.' }] });
    expect(plain.status).toBe(200);
    expect(queries.length).toBe(before);
    expect(systemOf(lastCall())).toBe(SERVICE_PROMPT);
    expect(plain.body.svc_parameters).not.toHaveProperty('web_search_citations');
    expect((await settlementOf(plain)).usage).not.toHaveProperty('webSearches');

    const fresh = await chat({ enable_web_search: 'auto' });
    expect(queries.length).toBe(before + 1);
    expect(systemOf(lastCall())).toContain('Snippet number 1');
    expect((await settlementOf(fresh)).usage).toMatchObject({ webSearches: 1 });
  });

  it('fits the context into a small model: its window minus the prompt and max_tokens', async () => {
    const answer = await chat({ enable_web_search: 'on' }, { model: 'small-ctx', max_tokens: 100 });
    expect(answer.status).toBe(200);
    const sent = lastCall().messages;
    const bytes = sent.reduce((sum, m) => sum + Buffer.byteLength(m.content) + 8, 0);
    expect(bytes).toBeLessThanOrEqual(700 - 100);
    expect(systemOf(lastCall())).toContain('[1] Result 1');
    expect(systemOf(lastCall())).toMatch(/\[web context truncated\]$/);
  });

  it('enable_x_search stays a 400 on a model without supportsXSearch, before anything runs', async () => {
    const before = calls.length;
    const answer = await chat({ enable_x_search: true });
    expect(answer.status).toBe(400);
    expect(answer.body.details.svc_parameters.enable_x_search._errors[0]).toMatch(/does not support x search/);
    expect(calls.length).toBe(before);
  });
});

describe('enable_web_citations', () => {
  it('asks for ^n^ and rewrites bracket forms in the answer', async () => {
    const answer = await chat({ enable_web_search: 'on', enable_web_citations: true });
    expect(systemOf(lastCall())).toContain('^1^');
    expect(answer.body.choices[0].message.content).toBe(CITED);
  });

  it('rewrites markers split across stream chunks', async () => {
    const answer = await chat({ enable_web_search: 'on', enable_web_citations: true }, { stream: true });
    expect(answer.status).toBe(200);
    const chunks = chunksOf(answer.text);
    expect(streamedText(chunks)).toBe(CITED);
    // The upstream sent 2 characters per chunk, so some markers were split.
    expect(chunks.filter((c) => c.choices[0]?.delta?.content).length).toBeGreaterThan(5);
  });

  it('suppresses citation markers when off, streaming too', async () => {
    const plain = await chat({ enable_web_search: 'on' });
    const streamed = streamedText(chunksOf((await chat({ enable_web_search: 'on' }, { stream: true })).text));
    for (const text of [plain.body.choices[0].message.content, streamed]) {
      expect(text).not.toMatch(/\[\d\]|\(\d\)|<sup>|\^/);
      expect(text).toMatch(/^Sky is blue.*Done$/);
    }
    expect(systemOf(lastCall())).not.toContain('^1^');
  });

  it('leaves the text alone when no source was used', async () => {
    const answer = await chat({ enable_web_citations: true });
    expect(answer.body.choices[0].message.content).toBe(ANSWER);
  });
});

describe('include_search_results_in_stream', () => {
  it('sends the results as the first chunk, before the role chunk', async () => {
    const answer = await chat({ enable_web_search: 'on', include_search_results_in_stream: true }, { stream: true });
    expect(answer.status).toBe(200);
    const [first, second, ...rest] = chunksOf(answer.text);
    expect(first).toMatchObject({ object: 'chat.completion.chunk', model: 'webby', choices: [], svc_search_results: RESULTS });
    expect(second.choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(second.svc_parameters).toMatchObject({ include_search_results_in_stream: true, web_search_citations: RESULTS });
    expect(rest.some((c) => c.svc_search_results)).toBe(false);
  });

  it('sends no results chunk without the flag', async () => {
    const chunks = chunksOf((await chat({ enable_web_search: 'on' }, { stream: true })).text);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.some((c) => c.svc_search_results)).toBe(false);
  });
});

describe('return_search_results_as_documents', () => {
  const documents = RESULTS.map((r, i) => ({ page_content: r.content, metadata: { index: i + 1, title: r.title, url: r.url, date: r.date } }));

  it('adds an OpenAI tool call svc_web_search_documents carrying LangChain documents', async () => {
    const answer = await chat({ enable_web_search: 'on', return_search_results_as_documents: true });
    const { message, finish_reason } = answer.body.choices[0];
    expect(message.content).toMatch(/^Sky is blue/);
    expect(message.tool_calls).toHaveLength(1);
    expect(message.tool_calls[0]).toMatchObject({ id: expect.any(String), type: 'function', function: { name: 'svc_web_search_documents' } });
    expect(JSON.parse(message.tool_calls[0].function.arguments)).toEqual({ documents });
    expect(finish_reason).toBe('stop');
  });

  it('streams the tool call as OpenAI does: an indexed delta naming it, then its arguments', async () => {
    const chunks = chunksOf((await chat({ enable_web_search: 'on', return_search_results_as_documents: true }, { stream: true })).text);
    const calls = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'svc_web_search_documents', arguments: '' } });
    expect(calls[1]).toEqual({ index: 0, function: { arguments: expect.any(String) } });
    expect(JSON.parse(calls[1].function.arguments)).toEqual({ documents });
  });
});

describe('enable_web_scraping', () => {
  const page = () => `http://localhost:${pagesPort}/lanterns`;

  it('reads the linked page into the prompt, skips search, bills only the page read', async () => {
    const before = queries.length;
    const content = `What do these say? ${page()} and http://localhost:${pagesPort}/missing`;
    const answer = await chat({ enable_web_scraping: true, enable_web_search: 'on' }, { messages: [{ role: 'user', content }] });
    expect(answer.status).toBe(200);
    expect(queries.length).toBe(before);
    const system = systemOf(lastCall());
    expect(system).toContain(PAGE_TEXT);
    expect(system).not.toContain('menu');
    expect(answer.body.svc_parameters.web_search_citations).toEqual([expect.objectContaining({ url: page(), title: 'Harbour lanterns' })]);
    const settled = await settlementOf(answer);
    expect(settled.usage).toMatchObject({ kind: 'text', webScrapes: 1 });
    expect(settled.usage).not.toHaveProperty('webSearches');
  });

  it('refuses private addresses through the SSRF guard: nothing read, nothing billed', async () => {
    const answer = await chat({ enable_web_scraping: true }, { messages: [{ role: 'user', content: `Summarise http://127.0.0.1:${pagesPort}/lanterns` }] });
    expect(answer.status).toBe(200);
    expect(systemOf(lastCall())).toBe(SERVICE_PROMPT);
    const settled = await settlementOf(answer);
    expect(settled.usage).not.toHaveProperty('webScrapes');
  });
});
