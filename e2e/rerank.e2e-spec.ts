import OpenAI from 'openai';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * `POST /rerank` as a user meets it: the platform started by `npm start` with the shipped catalog,
 * ranking with the embedded embedding model (svc-zoo-embed, 0.001 USD per million tokens = 1
 * nano-USD per token), billed for the tokens of the query and the documents.
 */
describe('rerank end to end', () => {
  let platform: RunningPlatform;
  let client: OpenAI;

  beforeAll(async () => {
    platform = await startPlatform();
    client = new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
  }, 120_000);
  afterAll(async () => {
    await platform?.stop();
  });

  const post = (p: string, body: unknown) =>
    fetch(`${platform.apiUrl}${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const balance = async () =>
    (await fetch(`${platform.apiUrl}/billing/balance`, { headers: { authorization: `Bearer ${platform.adminKey}` } })).headers.get('x-svc-balance-usd') ?? '';
  /** 100 USD less `nano` nano-USD, as the balance header writes it. */
  const hundredLess = (nano: number) => {
    const left = 100_000_000_000n - BigInt(nano);
    const fraction = (left % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '').padEnd(2, '0');
    return `${left / 1_000_000_000n}.${fraction}`;
  };
  async function balanceBecomes(expected: string): Promise<string> {
    let seen = '';
    for (const deadline = Date.now() + 8_000; Date.now() < deadline && seen !== expected; await new Promise((r) => setTimeout(r, 100))) seen = await balance();
    return seen;
  }

  const query = 'Where do bees make honey?';
  const documents = [
    'The train left the station an hour late because of snow on the line.',
    'Bees make honey from the nectar of flowers and store it in the wax cells of their hive.',
    { text: 'The court heard the case of the stolen silver and found the servant guilty.' },
    'Bread is baked in an oven from flour, water, salt and yeast.',
  ];

  it('puts the relevant document first, and charges exactly the tokens of the query and the documents', async () => {
    expect(await balance()).toBe('100.00');
    const res = await post('/rerank', { model: 'text-embedding-3-small', query, documents, return_documents: true });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      id: string;
      model: string;
      results: Array<{ index: number; relevance_score: number; document?: { text: string } }>;
      usage: { prompt_tokens: number; total_tokens: number };
    };
    expect(body.model).toBe('svc-zoo-embed');
    expect(body.results.map((r) => r.index).sort()).toEqual([0, 1, 2, 3]);
    expect(body.results[0]).toMatchObject({ index: 1, document: { text: documents[1] } });
    const scores = body.results.map((r) => r.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]).toBeGreaterThan(scores[1]);

    // The same texts through /embeddings count the same tokens: what rerank was charged.
    const texts = [query, ...documents.map((d) => (typeof d === 'string' ? d : d.text))];
    const embedded = await client.embeddings.create({ model: 'svc-zoo-embed', input: texts });
    const tokens = embedded.usage.prompt_tokens;
    expect(body.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    expect(await balanceBecomes(hundredLess(2 * tokens))).toBe(hundredLess(2 * tokens));
  });

  it('refuses more than 1,000 documents and a model that is not an embedding model, charging nothing', async () => {
    const before = await balance();
    const many = await post('/rerank', { model: 'svc-zoo-embed', query, documents: Array.from({ length: 1001 }, () => 'bees') });
    expect(many.status).toBe(400);
    expect(((await many.json()) as { details: Record<string, unknown> }).details.documents).toBeDefined();
    const chat = await post('/rerank', { model: 'svc-zoo-chat', query, documents: ['bees'] });
    expect(chat.status).toBe(404);
    expect(await balance()).toBe(before);
  });

  it('answers top_n results without documents by default', async () => {
    const res = await post('/rerank', { model: 'svc-zoo-embed', query, documents, top_n: 2 });
    const body = (await res.json()) as { results: Array<Record<string, unknown>> };
    expect(body.results).toHaveLength(2);
    expect(body.results[0].index).toBe(1);
    expect(body.results.every((r) => !('document' in r))).toBe(true);
  });
});
