import OpenAI from 'openai';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { RunningPlatform, startPlatform } from '@svc/testing';
import { accountWithKey } from './support/accounts';
import { settledAvailable } from './support/settled-available';

/**
 * The legacy text completions API (POST /completions) as the official `openai` SDK calls it, on the
 * platform as `npm start` runs it with its own catalog: the embedded default model continues the
 * prompt as raw text, with no chat template (a tiny model: poor text, but its own). Each test runs
 * on a fresh account credited with 1 USD, so the charge is read exactly from the billing database
 * once the holds have closed.
 */
const ONE_USD = 10n ** 9n;

describe('POST /completions end to end (openai SDK)', () => {
  let platform: RunningPlatform;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let db: Client;
  let defaultModel: string;
  let pricing: { input: { usd: number }; output: { usd: number } };

  beforeAll(async () => {
    platform = await startPlatform({ env: { BILLING_SETTLE_GRACE_MS: '500', BILLING_SWEEP_INTERVAL_MS: '200' } });
    nc = await connect({ servers: platform.env.NATS_URL });
    rpc = new RpcClient(nc, 10_000);
    db = new Client({ connectionString: platform.env.BILLING_DATABASE_URL });
    await db.connect();
    defaultModel = ((await (await fetch(`${platform.apiUrl}/models/traits`)).json()) as { data: { default: string } }).data.default;
    const admin = new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
    pricing = ((await admin.models.retrieve(defaultModel)) as unknown as { model_spec: { pricing: typeof pricing } }).model_spec.pricing;
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await nc?.close();
    await platform?.stop();
  });

  const clientOf = (key: string) => new OpenAI({ baseURL: platform.apiUrl, apiKey: key, maxRetries: 0 });

  /** A fresh account credited with 1 USD and a client on its INFERENCE key. */
  async function customer(): Promise<{ account: string; key: string; client: OpenAI }> {
    const { account, key } = await accountWithKey(rpc, db, ONE_USD, null);
    return { account, key, client: clientOf(key) };
  }

  /** A fresh account never credited (a new account starts with 0), and a client on its key. */
  async function brokeClient(): Promise<OpenAI> {
    const { accountId } = await rpc.send(KEYS.CREATE_ACCOUNT, { name: `e2e completions ${Date.now()}` });
    const { apiKey } = await rpc.send(KEYS.CREATE, {
      accountId,
      apiKeyType: 'INFERENCE',
      description: 'no credit',
      expiresAt: null,
      consumptionLimits: { usd: null, diem: null },
      limitPeriod: 'LIFETIME',
      modelPrivacy: 'ALL',
    });
    return clientOf(apiKey);
  }

  /** What `usage` costs at the default model's catalog prices (USD per million tokens), in nano-USD. */
  const costNano = (usages: OpenAI.CompletionUsage[]): bigint =>
    usages.reduce((sum, u) => sum + BigInt(Math.round(u.prompt_tokens * pricing.input.usd * 1000 + u.completion_tokens * pricing.output.usd * 1000)), 0n);

  function expectUsage(usage: OpenAI.CompletionUsage | undefined | null, maxCompletion: number): asserts usage is OpenAI.CompletionUsage {
    expect(usage).toBeDefined();
    expect(usage!.prompt_tokens).toBeGreaterThan(0);
    expect(usage!.completion_tokens).toBeGreaterThan(0);
    expect(usage!.completion_tokens).toBeLessThanOrEqual(maxCompletion);
    expect(usage!.total_tokens).toBe(usage!.prompt_tokens + usage!.completion_tokens);
  }

  it('completions.create: a text_completion with the model’s text (16 tokens at most by default), usage, and exactly its cost charged', async () => {
    const { account, client } = await customer();
    const { data, response } = await client.completions.create({ model: defaultModel, prompt: 'A lamp is', seed: 11 }).withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-svc-model-id')).toBe(defaultModel);
    expect(data).toMatchObject({ object: 'text_completion', model: defaultModel, created: expect.any(Number) });
    expect(data.id).toMatch(/^cmpl-[0-9a-f]{24}$/);
    expect(data.choices).toEqual([{ text: expect.any(String), index: 0, logprobs: null, finish_reason: expect.stringMatching(/^(stop|length)$/) }]);
    expect(data.choices[0].text.trim().length).toBeGreaterThan(0);
    // OpenAI's default max_tokens for this API is 16 (chat's would be the model's cap, 200).
    expectUsage(data.usage, 16);
    const charged = costNano([data.usage]);
    expect(charged).toBeGreaterThan(0n);
    expect(BigInt(Math.round((data as unknown as { cost: { usd: number } }).cost.usd * 1e9))).toBe(charged);
    expect(ONE_USD - (await settledAvailable(db, account))).toBe(charged);
  });

  it('the prompt is raw text the model continues: counted as it is, fewer tokens than the same text as a chat turn, and charged exactly', async () => {
    const { account, client } = await customer();
    const raw = await client.completions.create({ model: defaultModel, prompt: 'A lamp', max_tokens: 1 });
    // The begin-of-text token and the text's own: at most one token per byte, plus one.
    expect(raw.usage!.prompt_tokens).toBeGreaterThan(1);
    expect(raw.usage!.prompt_tokens).toBeLessThanOrEqual(Buffer.byteLength('A lamp') + 1);
    // The same text as a chat turn (no service system prompt either) is wrapped in the chat template.
    const turn = await client.chat.completions.create({
      model: defaultModel,
      messages: [{ role: 'user', content: 'A lamp' }],
      max_tokens: 1,
      svc_parameters: { include_svc_system_prompt: false },
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(raw.usage!.prompt_tokens).toBeLessThan(turn.usage!.prompt_tokens);
    expect(ONE_USD - (await settledAvailable(db, account))).toBe(costNano([raw.usage!, turn.usage!]));
  });

  it('echo: true answers the prompt followed by its continuation, plain and streamed, billed as without echo', async () => {
    const { account, client } = await customer();
    const prompt = 'Once upon a time';
    const plain = await client.completions.create({ model: defaultModel, prompt, max_tokens: 8, seed: 5, n: 2, echo: true });
    expect(plain.choices.map((c) => c.text.startsWith(prompt))).toEqual([true, true]);
    expectUsage(plain.usage, 16);
    const same = await client.completions.create({ model: defaultModel, prompt, max_tokens: 8, seed: 5 });
    expect(plain.choices[0].text).toBe(prompt + same.choices[0].text);
    expect(plain.usage!.prompt_tokens).toBe(same.usage!.prompt_tokens);

    const stream = await client.completions.create({
      model: defaultModel,
      prompt,
      max_tokens: 8,
      seed: 5,
      echo: true,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Completion[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.flatMap((c) => c.choices.map((choice) => choice.text)).join('')).toBe(plain.choices[0].text);
    const streamed = chunks.at(-1)!.usage!;
    expect(ONE_USD - (await settledAvailable(db, account))).toBe(costNano([plain.usage!, same.usage!, streamed]));
  });

  it('stream: true: text_completion chunks whose text is the answer, the usage chunk, [DONE], and exactly the usage charged', async () => {
    const { account, key, client } = await customer();
    const stream = await client.completions.create({
      model: defaultModel,
      prompt: 'The sea is',
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Completion[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.object === 'text_completion' && c.model === defaultModel && c.id === chunks[0].id)).toBe(true);
    expect(chunks[0].id).toMatch(/^cmpl-/);
    const text = chunks.flatMap((c) => c.choices.map((choice) => choice.text)).join('');
    expect(text.trim().length).toBeGreaterThan(0);
    const finishes = chunks.flatMap((c) => c.choices.filter((choice) => choice.finish_reason !== null));
    expect(finishes).toEqual([{ text: '', index: 0, logprobs: null, finish_reason: expect.stringMatching(/^(stop|length)$/) }]);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expectUsage(last.usage, 12);

    // The wire itself: server-sent events ending with data: [DONE].
    const res = await fetch(`${platform.apiUrl}/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: defaultModel, prompt: 'A colour is', max_tokens: 6, stream: true, stream_options: { include_usage: true } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const wire = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')) as OpenAI.Completion);
    expect(wire.every((c) => c.object === 'text_completion')).toBe(true);
    const wireUsage = wire.at(-1)!.usage;
    expectUsage(wireUsage, 6);

    expect(ONE_USD - (await settledAvailable(db, account))).toBe(costNano([last.usage!, wireUsage]));
  });

  it('n and logprobs: one choice per n, each with the legacy log probabilities of its tokens', async () => {
    const { account, client } = await customer();
    const prompt = 'A lamp is';
    const data = await client.completions.create({ model: defaultModel, prompt, max_tokens: 5, n: 2, best_of: 2, logprobs: 2, seed: 3 });
    expect(data.choices.map((c) => c.index)).toEqual([0, 1]);
    for (const choice of data.choices) {
      const logprobs = choice.logprobs!;
      expect(logprobs.tokens!.length).toBeGreaterThan(0);
      expect(logprobs.token_logprobs).toHaveLength(logprobs.tokens!.length);
      expect(logprobs.token_logprobs!.every((p) => p <= 0)).toBe(true);
      expect(logprobs.top_logprobs!.every((top) => Object.keys(top).length <= 2)).toBe(true);
      // As OpenAI counts it: from the start of the prompt, so the first token's offset is the prompt's length.
      expect(logprobs.text_offset![0]).toBe(prompt.length);
      expect(logprobs.text_offset!.slice(1)).toEqual(
        logprobs.tokens!.slice(0, -1).map((_, i) => prompt.length + logprobs.tokens!.slice(0, i + 1).join('').length),
      );
    }
    expectUsage(data.usage, 10);
    expect(ONE_USD - (await settledAvailable(db, account))).toBe(costNano([data.usage]));
  });

  it('400 names the field it refuses, before any credit is held', async () => {
    const { account, client } = await customer();
    const refused = async (body: Record<string, unknown>) => {
      const err = await client.completions.create({ model: defaultModel, prompt: 'A lamp', ...body } as OpenAI.CompletionCreateParamsNonStreaming).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      return (err as InstanceType<typeof OpenAI.APIError>).message;
    };
    expect(await refused({ echo: true, logprobs: 1 })).toMatch(/echo: true with logprobs is not supported/);
    expect(await refused({ suffix: 'The end.' })).toMatch(/suffix \(insertion\) is not supported/);
    // A raw prompt has no system message for the service's prompt, a character or web context.
    expect(await refused({ svc_parameters: { include_svc_system_prompt: true } })).toMatch(/svc_parameters\.include_svc_system_prompt: .*raw prompt/);
    expect(await refused({ model: `${defaultModel}:enable_web_search=auto` })).toMatch(/svc_parameters\.enable_web_search/);
    expect(await refused({ best_of: 3 })).toMatch(/best_of/);
    expect(await refused({ prompt: ['one', 'two'] })).toMatch(/prompt: one prompt per request/);
    expect(await refused({ temperature: 7 })).toMatch(/temperature/);
    expect(ONE_USD - (await settledAvailable(db, account))).toBe(0n);
  });

  it('402 for a key whose account has no credit, plain and streamed', async () => {
    const client = await brokeClient();
    for (const stream of [false, true]) {
      const err = await client.completions.create({ model: defaultModel, prompt: 'A lamp', max_tokens: 4, stream }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    }
  });
});
