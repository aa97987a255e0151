import { ChatStack, startChatStack } from './support/chat-stack';
import { LocalServer, startLocalServer } from './support/chat-http';

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

let stack: ChatStack;
let pagesPort: number;
const prompts: Array<Array<{ role: string; content: string }>> = [];
const servers: LocalServer[] = [];

beforeAll(async () => {
  const upstream = await startLocalServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as { model: string; messages: Array<{ role: string; content: string }>; stream?: boolean };
      prompts.push(body.messages);
      const base = { id: 'up-1', created: 1, model: body.model };
      const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Hi [1]' }, finish_reason: 'stop' }], usage })}\n\n`,
        );
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Hi [1]' }, finish_reason: 'stop' }],
          usage,
        }),
      );
    });
  });
  servers.push(upstream);
  const pages = await startLocalServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<html><head><title>Ferry times</title></head><body><article><h1>Ferry times</h1><p>${PAGE_TEXT}</p><p>${PAGE_TEXT}</p></article></body></html>`);
  });
  servers.push(pages);
  pagesPort = pages.port;
  stack = await startChatStack({
    name: 'webno',
    catalog: CATALOG,
    env: { WEB_UPSTREAM_URL: `http://127.0.0.1:${upstream.port}/v1` },
    chatEnv: { SVC_SYSTEM_PROMPT: '', SEARXNG_URL: '', BRAVE_SEARCH_API_KEY: '', OUTBOUND_ALLOWLIST: 'localhost' },
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  for (const server of servers) await server.close();
}, 60_000);

async function chat(svc: Record<string, unknown>, over: Record<string, unknown> = {}) {
  const answer = await stack.request('/chat/completions', {
    body: { model: 'plain', messages: [{ role: 'user', content: 'What is the latest news?' }], max_tokens: 16, svc_parameters: svc, ...over },
  });
  const contentType = answer.headers.get('content-type');
  return { ...answer, contentType, body: contentType?.includes('json') ? answer.body : undefined };
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
    const answer = await chat({
      enable_web_search: 'auto',
      enable_web_citations: true,
      include_search_results_in_stream: true,
      return_search_results_as_documents: true,
    });
    expect(answer.status).toBe(200);
    expect(prompts.at(-1)).toEqual([{ role: 'user', content: 'What is the latest news?' }]);
    expect(answer.body.choices[0].message).toEqual({ role: 'assistant', content: 'Hi [1]', refusal: null });
    expect(answer.body.svc_parameters).not.toHaveProperty('web_search_citations');
  });

  it('scraping needs no provider', async () => {
    const answer = await chat(
      { enable_web_scraping: true, enable_web_citations: true },
      { messages: [{ role: 'user', content: `When does it leave? http://localhost:${pagesPort}/ferry` }] },
    );
    expect(answer.status).toBe(200);
    expect(prompts.at(-1)?.[0].content).toContain(PAGE_TEXT);
    expect(answer.body.choices[0].message.content).toBe('Hi ^1^');
  });
});
