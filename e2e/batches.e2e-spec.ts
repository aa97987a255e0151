import { connect, NatsConnection } from 'nats';
import OpenAI, { toFile } from 'openai';
import { Client } from 'pg';
import { loadCatalog } from '@svc/catalog';
import { KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { quote } from '@svc/pricing';
import { RunningPlatform, startPlatform } from '@svc/testing';
import { validate } from './conformance/openai-validator';
import { accountWithKey } from './support/accounts';
import { settledAvailable } from './support/settled-available';

interface OutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: any } | null;
  error: { code: string; message: string } | null;
}

const QUESTIONS = ['Tell me about the sea.', 'What is a lamp?', 'Say something about the night.'];
const chatLine = (customId: string, content: string, maxTokens = 8) => ({
  custom_id: customId,
  method: 'POST',
  url: '/v1/chat/completions',
  body: { model: 'default', messages: [{ role: 'user', content }], max_tokens: maxTokens },
});
const KEY_DEFAULTS = {
  apiKeyType: 'INFERENCE' as const,
  description: 'e2e batch key',
  expiresAt: null,
  consumptionLimits: { usd: null, diem: null },
  limitPeriod: 'LIFETIME' as const,
  modelPrivacy: 'ALL' as const,
};
const jsonl = (lines: unknown[]) => Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');

/**
 * Issue 32, the Files and Batch APIs through the platform as `npm start` runs it, with the
 * official client: each line admitted, run and settled as a live request, cancel, up-front
 * validation, and files and batches private to their account.
 */
describe('files and batches end to end', () => {
  let platform: RunningPlatform;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let db: Client;
  const catalog = loadCatalog();

  beforeAll(async () => {
    // A killed worker's batch is taken over 2 s later (60 s by default).
    platform = await startPlatform({
      env: { ABUSE_PROTECTION_ENABLED: 'false', BATCH_JOB_LOCK_MS: '2000', BATCH_FILE_MAX_BYTES: String(64 * 1024), BATCH_MAX_LINES: '100' },
    });
    nc = await connect({ servers: platform.env.NATS_URL });
    rpc = new RpcClient(nc, 10_000);
    db = new Client({ connectionString: platform.env.BILLING_DATABASE_URL });
    await db.connect();
  }, 150_000);

  afterAll(async () => {
    await db?.end();
    await nc?.close();
    await platform?.stop();
  });

  const clientOf = (key: string) => new OpenAI({ baseURL: platform.apiUrl, apiKey: key, maxRetries: 0 });
  const upload = async (client: OpenAI, lines: unknown[]) => client.files.create({ file: await toFile(jsonl(lines), 'requests.jsonl'), purpose: 'batch' });
  const linesOf = async (client: OpenAI, fileId: string | null | undefined): Promise<OutputLine[]> => {
    if (!fileId) return [];
    const text = await (await client.files.content(fileId)).text();
    return text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as OutputLine);
  };
  const until = async (client: OpenAI, id: string, statuses: string[]) => {
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      // A gateway killed by a test is back within seconds (npm start restarts it).
      const batch = await client.batches.retrieve(id).catch((err: unknown) => {
        if (err instanceof OpenAI.APIConnectionError) return null;
        throw err;
      });
      if (batch && statuses.includes(batch.status)) return batch;
    }
    throw new Error(`batch ${id} did not reach ${statuses.join('/')}`);
  };
  /** What the usage of a line's answer costs at its model's prices, in nano-USD (a response counts input and output tokens). */
  const costOf = (body: any): bigint => {
    const model = catalog.resolve(body.model, 'text')!;
    const promptTokens = body.usage.prompt_tokens ?? body.usage.input_tokens;
    const completionTokens = body.usage.completion_tokens ?? body.usage.output_tokens;
    return quote(model.id, model.pricing, { kind: 'text', promptTokens, completionTokens }).total.usd;
  };
  /** Runs `lines` as a batch of `endpoint` on a funded account: the finished batch, its output lines, and what the account was charged. */
  const runBatch = async (endpoint: '/v1/chat/completions' | '/v1/completions' | '/v1/responses', lines: unknown[]) => {
    const { account, key } = await accountWithKey(rpc, db, 10n ** 9n, null);
    const client = clientOf(key);
    const input = await upload(client, lines);
    const created = await client.batches.create({ input_file_id: input.id, endpoint, completion_window: '24h' });
    expect(created.endpoint).toBe(endpoint);
    const done = await until(client, created.id, ['completed', 'failed', 'expired', 'cancelled']);
    const output = await linesOf(client, done.output_file_id);
    return { account, done, output, charged: 10n ** 9n - (await settledAvailable(db, account)) };
  };
  const status = (p: Promise<unknown>) =>
    p.then(
      () => 200,
      (err: { status?: number }) => err.status,
    );

  it('runs a 3-line chat batch: 3 real answers with usage, the account charged exactly their sum, the input deleted', async () => {
    const { account, key } = await accountWithKey(rpc, db, 10n ** 9n, null);
    const client = clientOf(key);
    const input = await upload(
      client,
      QUESTIONS.map((q, i) => chatLine(`q${i}`, q)),
    );
    expect(input).toMatchObject({ object: 'file', purpose: 'batch', filename: 'requests.jsonl', bytes: expect.any(Number) });
    expect((await client.files.retrieve(input.id)).id).toBe(input.id);

    const created = await client.batches.create({
      input_file_id: input.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { run: 'e2e' },
    });
    expect(created).toMatchObject({ object: 'batch', status: 'validating', request_counts: { total: 3, completed: 0, failed: 0 }, metadata: { run: 'e2e' } });
    const done = await until(client, created.id, ['completed', 'failed', 'expired', 'cancelled']);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 3, failed: 0 }, error_file_id: null });
    expect(done.completed_at).toEqual(expect.any(Number));

    const output = await linesOf(client, done.output_file_id);
    expect(output.map((l) => l.custom_id)).toEqual(['q0', 'q1', 'q2']);
    for (const line of output) {
      expect(line.error).toBeNull();
      expect(line.response?.status_code).toBe(200);
      expect(line.response?.body.object).toBe('chat.completion');
      expect(line.response?.body.choices[0].message.content).toEqual(expect.stringMatching(/\S/));
      expect(line.response?.body.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
      expect(line.response!.body.usage.completion_tokens).toBeGreaterThan(0);
    }
    const charged = output.reduce((sum, l) => sum + costOf(l.response!.body), 0n);
    expect(charged).toBeGreaterThan(0n);
    expect(10n ** 9n - (await settledAvailable(db, account))).toBe(charged);

    // Prompts and answers are never logged.
    const logs = platform.output();
    for (const q of QUESTIONS) expect(logs).not.toContain(q);
    for (const line of output) expect(logs).not.toContain(line.response!.body.choices[0].message.content);
    // The input is gone with the batch; the output stays, as an OpenAI file of this account.
    expect(await status(client.files.retrieve(input.id))).toBe(404);
    expect((await client.files.retrieve(done.output_file_id!)).purpose).toBe('batch_output');
    expect((await client.batches.list()).data.map((b) => b.id)).toContain(created.id);
  }, 180_000);

  it('runs an embeddings batch: vectors and usage per line, charged exactly', async () => {
    const { account, key } = await accountWithKey(rpc, db, 10n ** 9n, null);
    const client = clientOf(key);
    const texts = ['a lamp in the dark', 'a light at night'];
    const input = await upload(
      client,
      texts.map((text, i) => ({ custom_id: `e${i}`, method: 'POST', url: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: text } })),
    );
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    const done = await until(client, created.id, ['completed', 'failed', 'expired', 'cancelled']);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 2, failed: 0 } });
    const output = await linesOf(client, done.output_file_id);
    let charged = 0n;
    for (const line of output) {
      const body = line.response!.body;
      expect(body.object).toBe('list');
      expect(body.data[0].embedding.length).toBeGreaterThan(8);
      expect(body.usage.prompt_tokens).toBeGreaterThan(0);
      const model = catalog.resolve(body.model, 'embedding')!;
      charged += quote(model.id, model.pricing, { kind: 'embedding', inputTokens: body.usage.prompt_tokens }).total.usd;
    }
    expect(10n ** 9n - (await settledAvailable(db, account))).toBe(charged);
  }, 120_000);

  // The text routes besides chat: each line answered as the live route answers (`stream: true` ignored: a line is answered whole).
  const TEXT_ROUTES = [
    {
      endpoint: '/v1/completions',
      schema: 'CreateCompletionResponse',
      // A raw prompt the model continues (docs/completions.md): the question, then the start of its answer.
      body: (q: string) => ({ model: 'default', prompt: `Q: ${q}\nA:`, max_tokens: 8, stream: true }),
      shape: { object: 'text_completion', id: expect.stringMatching(/^cmpl-/) },
      text: (body: any): string => body.choices[0].text,
    },
    {
      endpoint: '/v1/responses',
      schema: 'Response',
      body: (q: string) => ({ model: 'default', instructions: 'Answer in one short sentence.', input: q, max_output_tokens: 16, stream: true }),
      shape: {
        object: 'response',
        id: expect.stringMatching(/^resp_/),
        instructions: 'Answer in one short sentence.',
        status: expect.stringMatching(/^(completed|incomplete)$/),
      },
      text: (body: any): string => body.output.find((o: { type: string }) => o.type === 'message').content[0].text,
    },
  ] as const;
  it.each(TEXT_ROUTES)(
    'runs a $endpoint batch: answers as OpenAI shapes them, the account charged exactly their sum',
    async (route) => {
      const lines = QUESTIONS.map((q, i) => ({ custom_id: `t${i}`, method: 'POST', url: route.endpoint, body: route.body(q) }));
      const { done, output, charged } = await runBatch(route.endpoint, lines);
      expect(done).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 3, failed: 0 }, error_file_id: null });
      expect(output.map((l) => l.custom_id)).toEqual(['t0', 't1', 't2']);
      for (const line of output) {
        expect(line.response?.status_code).toBe(200);
        expect(validate(route.schema, line.response!.body)).toEqual([]);
        expect(line.response!.body).toMatchObject(route.shape);
        expect(route.text(line.response!.body)).toEqual(expect.stringMatching(/\S/));
      }
      expect(charged).toBeGreaterThan(0n);
      expect(charged).toBe(output.reduce((sum, l) => sum + costOf(l.response!.body), 0n));
    },
    180_000,
  );

  it('runs the lines of a batch in parallel (BATCH_LINE_CONCURRENCY, default 4): every line answered once, in input order, charged exactly', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => chatLine(`p${i}`, QUESTIONS[i % 3], 16));
    const { account, done, output, charged } = await runBatch('/v1/chat/completions', lines);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 12, completed: 12, failed: 0 }, error_file_id: null });
    expect(output.map((l) => l.custom_id)).toEqual(lines.map((l) => l.custom_id));
    expect(new Set(output.map((l) => l.response!.body.id)).size).toBe(12);
    expect(charged).toBe(output.reduce((sum, l) => sum + costOf(l.response!.body), 0n));
    // One reservation per line; the 4th line was held while the 1st still was: they ran side by side.
    // (Settlement lands a little after each answer, so one after another the 2nd overlaps the 1st; the 4th never does.)
    const { rows } = await db.query<{ request_id: string; created_at: Date; finalized_at: Date }>(
      'SELECT request_id, created_at, finalized_at FROM reservations WHERE account_id = $1',
      [account],
    );
    expect(rows).toHaveLength(12);
    const hold = (index: number) => rows.find((r) => r.request_id === `${done.id.replace('batch_', 'batch_req_')}_${index}`)!;
    expect(hold(3).created_at.getTime()).toBeLessThan(hold(0).finalized_at.getTime());
  }, 180_000);

  it('pages GET /files as OpenAI does: limit, after, order, purpose, and has_more, first_id and last_id', async () => {
    const { key } = await accountWithKey(rpc, db, 10n ** 9n, null);
    const client = clientOf(key);
    const uploaded: string[] = [];
    for (const i of [0, 1, 2]) {
      uploaded.push((await upload(client, [chatLine(`f${i}`, QUESTIONS[i])])).id);
      // created_at orders the list: a millisecond apart at least.
      await new Promise((r) => setTimeout(r, 5));
    }
    const newestFirst = [...uploaded].reverse();
    const first = await client.files.list({ limit: 1 });
    expect(first.data.map((f) => f.id)).toEqual([newestFirst[0]]);
    expect(first.has_more).toBe(true);
    const second = await client.files.list({ limit: 1, after: first.data[0].id });
    expect(second.data.map((f) => f.id)).toEqual([newestFirst[1]]);
    const last = await client.files.list({ limit: 2, after: second.data[0].id });
    expect(last.data.map((f) => f.id)).toEqual([newestFirst[2]]);
    expect(last.has_more).toBe(false);
    // The client's own pagination walks every page.
    const walked: string[] = [];
    for await (const file of client.files.list({ limit: 1 })) walked.push(file.id);
    expect(walked).toEqual(newestFirst);
    expect((await client.files.list({ order: 'asc' })).data.map((f) => f.id)).toEqual(uploaded);
    expect((await client.files.list({ purpose: 'batch_output' })).data).toEqual([]);
    expect((await client.files.list({ purpose: 'batch' })).data).toHaveLength(3);

    const raw = async (query: string) => {
      const res = await fetch(`${platform.apiUrl}/files${query}`, { headers: { authorization: `Bearer ${key}` } });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await raw('?limit=2')).body).toMatchObject({ object: 'list', first_id: newestFirst[0], last_id: newestFirst[1], has_more: true });
    expect((await raw(`?after=${newestFirst[2]}`)).body).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
    for (const bad of ['?limit=0', '?limit=10001', '?order=up']) expect((await raw(bad)).status).toBe(400);
    // /batches pages the same way.
    const batchIds: string[] = [];
    for (const id of uploaded.slice(0, 2)) {
      batchIds.unshift((await client.batches.create({ input_file_id: id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id);
      await new Promise((r) => setTimeout(r, 5));
    }
    const batchPage = await client.batches.list({ limit: 1 });
    expect(batchPage.data.map((b) => b.id)).toEqual([batchIds[0]]);
    expect(batchPage.has_more).toBe(true);
    expect((await client.batches.list({ limit: 1, after: batchIds[0] })).data.map((b) => b.id)).toEqual([batchIds[1]]);
    for (const id of batchIds) await until(client, id, ['completed']);
  }, 120_000);

  it('a batch whose credit covers only part of it: the lines that cannot be paid are 402 lines, the rest run and are charged', async () => {
    // One line's hold (its prompt counted exactly, 8 completion tokens), measured on a funded account.
    const probe = await accountWithKey(rpc, db, 10n ** 9n, null);
    const res = await clientOf(probe.key).chat.completions.create(chatLine('p', QUESTIONS[0]).body as never);
    const model = catalog.resolve(res.model, 'text')!;
    const oneHold = quote(model.id, model.pricing, { kind: 'text', promptTokens: res.usage!.prompt_tokens, completionTokens: 8 }).total.usd;
    const balance = (oneHold * 3n) / 2n;
    const { account, key } = await accountWithKey(rpc, db, balance, null);
    const client = clientOf(key);
    const input = await upload(
      client,
      [0, 1, 2].map((i) => chatLine(`l${i}`, QUESTIONS[0])),
    );
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await until(client, created.id, ['completed', 'failed', 'expired', 'cancelled']);
    expect(done.status).toBe('completed');
    const output = await linesOf(client, done.output_file_id);
    const errors = await linesOf(client, done.error_file_id);
    expect(output.length).toBeGreaterThanOrEqual(1);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(done.request_counts).toEqual({ total: 3, completed: output.length, failed: errors.length });
    for (const line of errors) {
      expect(line.response?.status_code).toBe(402);
      expect(line.response?.body.error.code).toBe('insufficient_quota');
    }
    const charged = output.reduce((sum, l) => sum + costOf(l.response!.body), 0n);
    expect(balance - (await settledAvailable(db, account))).toBe(charged);
  }, 180_000);

  it('a gateway killed mid-batch: another worker resumes it, every line answered once and charged once', async () => {
    const { account, key } = await accountWithKey(rpc, db, 10n ** 9n, null);
    const client = clientOf(key);
    const lines = Array.from({ length: 16 }, (_, i) => {
      const line = chatLine(`r${i}`, QUESTIONS[i % 3], 48);
      // Greedy: a line run again after the kill counts the same tokens as its first run.
      return { ...line, body: { ...line.body, temperature: 0 } };
    });
    const input = await upload(client, lines);
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    for (let polls = 0; polls < 400; polls++) {
      if ((await client.batches.retrieve(created.id)).request_counts!.completed >= 2) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const workers = platform
      .output()
      .split('\n')
      .filter((l) => l.includes('"batch worker ready"'))
      .map((l) => (JSON.parse(l.slice(l.indexOf('{'))) as { pid: number }).pid);
    process.kill(workers.at(-1)!, 'SIGKILL');
    const killedAt = (await db.query<{ n: string }>('SELECT count(*) AS n FROM reservations WHERE account_id = $1', [account])).rows[0].n;
    expect(Number(killedAt)).toBeLessThan(16);

    const done = await until(client, created.id, ['completed', 'failed', 'expired', 'cancelled']);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 16, completed: 16, failed: 0 } });
    const output = await linesOf(client, done.output_file_id);
    expect(output.map((l) => l.custom_id)).toEqual(lines.map((l) => l.custom_id));
    // One reservation per line, whatever ran twice; each paid once, nothing beyond its hold.
    const { rows } = await db.query<{ n: string; uncollected: string }>(
      'SELECT count(*) AS n, coalesce(sum(uncollected_nano), 0) AS uncollected FROM reservations WHERE account_id = $1',
      [account],
    );
    expect(rows[0]).toEqual({ n: '16', uncollected: '0' });
    const charged = output.reduce((sum, l) => sum + costOf(l.response!.body), 0n);
    expect(10n ** 9n - (await settledAvailable(db, account))).toBe(charged);
  }, 180_000);

  it('cancel: lines not yet started never run, and the batch ends cancelled with them in its error file', async () => {
    const { key } = await accountWithKey(rpc, db, 10n ** 9n, null);
    const client = clientOf(key);
    const lines = Array.from({ length: 40 }, (_, i) => chatLine(`c${i}`, QUESTIONS[i % 3], 32));
    const input = await upload(client, lines);
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const cancelling = await client.batches.cancel(created.id);
    expect(['cancelling', 'cancelled']).toContain(cancelling.status);
    const done = await until(client, created.id, ['cancelled', 'completed']);
    expect(done.status).toBe('cancelled');
    expect(done.cancelled_at).toEqual(expect.any(Number));
    const ran = done.request_counts!.completed + done.request_counts!.failed;
    expect(ran).toBeLessThan(40);
    const errors = await linesOf(client, done.error_file_id);
    expect(errors.filter((l) => l.error?.code === 'batch_cancelled')).toHaveLength(40 - ran);
    expect(await status(client.files.retrieve(input.id))).toBe(404);
  }, 180_000);

  it('a key deleted while its batch runs runs no more lines: they end as 401 lines, none charged', async () => {
    const { account } = await accountWithKey(rpc, db, 10n ** 9n, null);
    const created = await rpc.send(KEYS.CREATE, { ...KEY_DEFAULTS, accountId: account });
    const client = clientOf(created.apiKey);
    const input = await upload(
      client,
      Array.from({ length: 40 }, (_, i) => chatLine(`k${i}`, QUESTIONS[i % 3], 32)),
    );
    const batch = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await rpc.send(KEYS.DELETE, { accountId: account, id: created.data.id });
    // The key is gone: the batch is read with another key of the account.
    const admin = clientOf((await rpc.send(KEYS.CREATE, { ...KEY_DEFAULTS, accountId: account })).apiKey);
    const done = await until(admin, batch.id, ['completed']);
    const output = await linesOf(admin, done.output_file_id);
    const errors = await linesOf(admin, done.error_file_id);
    expect(errors.length).toBeGreaterThan(0);
    for (const line of errors) expect(line.response?.status_code).toBe(401);
    const charged = output.reduce((sum, l) => sum + costOf(l.response!.body), 0n);
    expect(10n ** 9n - (await settledAvailable(db, account))).toBe(charged);
  }, 180_000);

  it('refuses a bad JSONL with a 400 naming the first bad line, and other purposes and endpoints', async () => {
    const { key } = await accountWithKey(rpc, db, 10n ** 9n, null);
    const client = clientOf(key);
    const bad = await upload(client, [chatLine('a', 'hi'), { ...chatLine('b', 'hi'), url: '/v1/embeddings' }, chatLine('a', 'hi')]);
    const refusal = await client.batches.create({ input_file_id: bad.id, endpoint: '/v1/chat/completions', completion_window: '24h' }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(OpenAI.BadRequestError);
    expect(JSON.stringify((refusal as InstanceType<typeof OpenAI.BadRequestError>).error)).toContain('Line 2 of the input file');
    const dup = await upload(client, [chatLine('a', 'hi'), chatLine('a', 'hi')]);
    const dupRefusal = await client.batches
      .create({ input_file_id: dup.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
      .catch((e: unknown) => e);
    expect(JSON.stringify((dupRefusal as InstanceType<typeof OpenAI.BadRequestError>).error)).toContain('Line 2 of the input file repeats custom_id');
    expect(await status(client.files.create({ file: await toFile(jsonl([chatLine('a', 'hi')]), 'x.jsonl'), purpose: 'fine-tune' }))).toBe(400);
    // The limits (set low for this platform): 413 above the size, 400 above the line count.
    expect(await status(client.files.create({ file: await toFile(Buffer.alloc(64 * 1024 + 1, 'a'), 'big.jsonl'), purpose: 'batch' }))).toBe(413);
    const many = Array.from({ length: 101 }, (_, i) => chatLine(`m${i}`, 'hi'));
    expect(await status(upload(client, many))).toBe(400);
    for (const endpoint of ['/v1/moderations', '/v1/images/generations', '/v1/rerank'])
      expect(await status(client.batches.create({ input_file_id: bad.id, endpoint: endpoint as never, completion_window: '24h' }))).toBe(400);
    expect(
      await status(client.batches.create({ input_file_id: 'file-000000000000000000000000', endpoint: '/v1/chat/completions', completion_window: '24h' })),
    ).toBe(404);
  }, 60_000);

  it("another account can neither see nor fetch an account's files and batches (404)", async () => {
    const owner = clientOf((await accountWithKey(rpc, db, 10n ** 9n, null)).key);
    const other = clientOf((await accountWithKey(rpc, db, 10n ** 9n, null)).key);
    const input = await upload(owner, [chatLine('a', QUESTIONS[1])]);
    const spare = await upload(owner, [chatLine('a', QUESTIONS[1])]);
    const created = await owner.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await until(owner, created.id, ['completed']);
    for (const fileId of [spare.id, done.output_file_id!]) {
      expect(await status(other.files.retrieve(fileId))).toBe(404);
      expect(await status(other.files.content(fileId))).toBe(404);
      expect(await status(other.files.delete(fileId))).toBe(404);
    }
    expect(await status(other.batches.retrieve(created.id))).toBe(404);
    expect(await status(other.batches.cancel(created.id))).toBe(404);
    expect(await status(other.batches.create({ input_file_id: spare.id, endpoint: '/v1/chat/completions', completion_window: '24h' }))).toBe(404);
    expect((await other.files.list()).data).toEqual([]);
    expect((await other.batches.list()).data).toEqual([]);
    // The owner still has them, and deletes its file for good.
    expect((await owner.files.list()).data.map((f) => f.id)).toEqual(expect.arrayContaining([spare.id, done.output_file_id]));
    expect(await owner.files.delete(spare.id)).toMatchObject({ id: spare.id, deleted: true });
    expect(await status(owner.files.content(spare.id))).toBe(404);
  }, 120_000);
});
