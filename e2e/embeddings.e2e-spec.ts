import OpenAI from 'openai';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * Embeddings and the augment endpoints as a user meets them: the platform started by `npm start`
 * with the shipped catalog (svc-zoo-embed, 0.001 USD per million tokens = 1 nano-USD per token),
 * the official client, no search provider configured.
 */
describe('embeddings and augment end to end', () => {
  let platform: RunningPlatform;
  let client: OpenAI;

  beforeAll(async () => {
    platform = await startPlatform();
    client = new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
  }, 120_000);
  afterAll(async () => {
    await platform?.stop();
  });

  const http = (p: string, body?: unknown) =>
    fetch(`${platform.apiUrl}${p}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('embeds with the default model through the official client and charges one nano-USD per token', async () => {
    const before = (await http('/billing/balance')).headers.get('x-svc-balance-usd');
    expect(before).toBe('100.00');
    const res = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['The river runs to the sea.', 'A lamp in the window.'] });
    expect(res.model).toBe('svc-zoo-embed');
    expect(res.data.map((d) => d.embedding.length)).toEqual([160, 160]);
    expect(res.usage.prompt_tokens).toBe(11);
    let balance = '';
    for (const deadline = Date.now() + 8_000; Date.now() < deadline && balance !== '99.999999989'; await new Promise((r) => setTimeout(r, 100))) {
      balance = (await http('/billing/balance')).headers.get('x-svc-balance-usd') ?? '';
    }
    expect(balance).toBe('99.999999989');
  });

  it('lists the embedding model with its limits, and refuses token arrays', async () => {
    const models = (await (await http('/models?type=embedding')).json()) as {
      data: Array<{ id: string; model_spec: { constraints: Record<string, unknown> } }>;
    };
    expect(models.data.find((m) => m.id === 'svc-zoo-embed')?.model_spec.constraints).toMatchObject({ dimensions: 160, maxBatch: 2048 });
    const res = await http('/embeddings', { model: 'svc-zoo-embed', input: [101, 2023] });
    expect(res.status).toBe(400);
  });

  it('answers /augment/search with 400 "not configured" when no search provider is set', async () => {
    const res = await http('/augment/search', { query: 'lanterns' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('Web search is not configured on this server (set SEARXNG_URL or BRAVE_SEARCH_API_KEY).');
  });
});
