import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { Client } from 'pg';
import { REPO_ROOT } from '@svc/config';
import { FakeOpenAiUpstream, RunningPlatform, startFakeOpenAiUpstream, startPlatform } from '@svc/testing';

/**
 * Prepaid credits end to end: the platform as `npm start` runs it, a fake upstream whose token
 * counts are exact, and the official client. Costs: 10 nano-USD per prompt token, 20 per output
 * token, so every balance below is an exact decimal string.
 */
describe('billing end to end', () => {
  let platform: RunningPlatform;
  let upstream: FakeOpenAiUpstream;
  let closeUpstream: () => Promise<void>;
  let admin: OpenAI;
  const billingDb = `${(process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432').replace(/\/+$/, '')}/svc_test_e2e_billing_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  /** What the bootstrap account should have now, in nano-USD. */
  let expectedUsd = 100_000_000_000n;

  beforeAll(async () => {
    const started = await startFakeOpenAiUpstream({ completionTokens: 8 });
    upstream = started.upstream;
    closeUpstream = started.close;
    platform = await startPlatform({
      env: {
        SVC_CATALOG_PATH: path.join(REPO_ROOT, 'e2e/fixtures/billing-catalog.yaml'),
        E2E_UPSTREAM_URL: started.baseUrl,
        BILLING_DATABASE_URL: billingDb,
        // Exact prompt counts below come from the caller's words only.
        SVC_SYSTEM_PROMPT: '',
        STREAM_IDLE_TIMEOUT_MS: '1500',
        BILLING_SETTLE_GRACE_MS: '500',
        BILLING_SWEEP_INTERVAL_MS: '200',
      },
    });
    admin = new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await closeUpstream?.();
  });

  const json = (res: Response) => res.json() as Promise<any>;
  const http = (p: string, init: RequestInit = {}, key = platform.adminKey) =>
    fetch(`${platform.apiUrl}${p}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    });
  const nano = (n: bigint) => {
    const whole = n / 1_000_000_000n;
    const fraction = (n % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
    return `${whole}.${fraction.padEnd(2, '0')}`;
  };
  const cost = (prompt: number, completion: number) => BigInt(prompt) * 10n + BigInt(completion) * 20n;

  /** Reads SSE text until `pieces` content chunks arrived (or the stream ended). */
  async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, pieces: number): Promise<string> {
    let text = '';
    while ((text.match(/"content":" ?tok\d/g) ?? []).length < pieces) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended after ${text.length} bytes: ${text.slice(0, 300)}`);
      text += new TextDecoder().decode(value);
    }
    return text;
  }

  /** Settlement is asynchronous (the chat service settles in the background): poll until the balance says so. */
  async function expectBalance(expected: bigint, header = 'x-svc-balance-usd'): Promise<void> {
    let last = '';
    for (const deadline = Date.now() + 8_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      last = (await http('/billing/balance')).headers.get(header) ?? '';
      if (last === nano(expected)) return;
    }
    expect(last).toBe(nano(expected));
  }
  const expectUsdBalance = (expected: bigint) => expectBalance(expected);

  /**
   * The prompt tokens the hold counted for a request (docs/billing.md, "What a hold covers"). A
   * request admitted under a credit lease has its row once it is settled (or its gateway fallback
   * recorded), in a batch a few milliseconds later.
   */
  async function reservedPromptTokens(requestId: string): Promise<number> {
    const sql = new Client({ connectionString: billingDb });
    await sql.connect();
    try {
      for (const deadline = Date.now() + 5_000; ; await new Promise((r) => setTimeout(r, 50))) {
        const { rows } = await sql.query(`SELECT worst_case->>'promptTokens' AS p FROM reservations WHERE request_id = $1`, [requestId]);
        if (rows[0] || Date.now() > deadline) return Number(rows[0]?.p);
      }
    } finally {
      await sql.end();
    }
  }

  /** The billing CLI, as an operator runs it against this platform's database. */
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'dist/apps/billing/src/cli/main.js'), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, BILLING_DATABASE_URL: billingDb },
    });

  /** The bootstrap account: the only one billing knows in this test. */
  async function onlyAccount(): Promise<string> {
    const sql = new Client({ connectionString: billingDb });
    await sql.connect();
    const { rows } = await sql.query('SELECT id FROM billing_accounts');
    await sql.end();
    expect(rows).toHaveLength(1);
    return rows[0].id as string;
  }

  it('credits the bootstrap account with SVC_BOOTSTRAP_CREDITS_USD (default 100) and shows it', async () => {
    const res = await http('/billing/balance');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ canConsume: true, consumptionCurrency: 'USD', balances: { diem: null, usd: 100 }, diemEpochAllocation: 0 });
    expect(res.headers.get('x-svc-balance-usd')).toBe('100.00');
    expect(res.headers.get('x-svc-balance-diem')).toBe('0.00');
  });

  it('charges exact costs for mixed streaming and non-streaming requests, with balances before each request and the cost in the response', async () => {
    const { data, response } = await admin.chat.completions
      .create({ model: 'e2e-upstream', messages: [{ role: 'user', content: 'one two three four five' }], max_tokens: 64 })
      .withResponse();
    expect(data.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 8 });
    expect((data as unknown as { cost: unknown }).cost).toEqual({ usd: 0.00000021, diem: 0 });
    expect(response.headers.get('x-svc-balance-usd')).toBe('100.00');
    expectedUsd -= cost(5, 8);

    const stream = await admin.chat.completions.create({
      model: 'e2e-upstream',
      messages: [{ role: 'user', content: 'six seven eight' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 8 });
    expectedUsd -= cost(3, 8);

    await admin.chat.completions.create({
      model: 'e2e-upstream',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'nine ten' },
      ],
      max_tokens: 3,
    });
    expectedUsd -= cost(4, 3);
    await expectUsdBalance(expectedUsd);
  });

  it('bills a stream cut by the client for what was generated up to the cut, and holds nothing after', async () => {
    upstream.configure({ completionTokens: 200, tokenDelayMs: 40 });
    const controller = new AbortController();
    const res = await http('/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: 'e2e-upstream', messages: [{ role: 'user', content: 'Count slowly please' }], stream: true }),
      signal: controller.signal,
    });
    const requestId = res.headers.get('cf-ray')!;
    const reader = res.body!.getReader();
    const text = await readUntil(reader, 3);
    controller.abort();
    const received = (text.match(/"content":" ?tok\d/g) ?? []).length;
    upstream.configure({ completionTokens: 8, tokenDelayMs: 0 });

    let lines: any[] = [];
    for (const deadline = Date.now() + 8_000; lines.length < 2 && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      lines = (await json(await http('/billing/usage-history'))).data.filter((e: any) => e.inferenceDetails?.requestId === requestId);
    }
    const output = lines.find((l) => l.sku === 'e2e-upstream-llm-output-mtoken');
    const input = lines.find((l) => l.sku === 'e2e-upstream-llm-input-mtoken');
    // Every piece generated before the cut, at least what reached the client, far from all 200.
    expect(output.inferenceDetails.completionTokens).toBeGreaterThanOrEqual(received);
    expect(output.inferenceDetails.completionTokens).toBeLessThan(200);
    // The prompt count is not known at a cut (the upstream reports usage at the end): billed at what the hold counted.
    const reserved = await reservedPromptTokens(requestId);
    expect(reserved).toBeGreaterThan('Count slowly please'.length);
    expect(input.units).toBeCloseTo(reserved / 1e6, 12);
    expectedUsd -= cost(reserved, output.inferenceDetails.completionTokens);
    await expectUsdBalance(expectedUsd);
  });

  it('refuses with 402 before any model runs when the balance or the key’s limit cannot cover the worst case', async () => {
    const before = upstream.requestCount;
    const pricey = await http('/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: 'e2e-pricey', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(pricey.status).toBe(402);
    expect(await json(pricey)).toEqual({
      error: expect.stringMatching(
        /^Insufficient balance: this request may cost up to 640\.0001\d* USD, and the account has 99\.\d+ USD available\. Add credits/,
      ),
    });
    expect(pricey.headers.get('cf-ray')).toBeTruthy();

    const created = await json(
      await http('/api_keys', {
        method: 'POST',
        body: JSON.stringify({ apiKeyType: 'INFERENCE', description: 'capped', consumptionLimit: { usd: 0.000001 } }),
      }),
    );
    const capped = await http(
      '/chat/completions',
      { method: 'POST', body: JSON.stringify({ model: 'e2e-upstream', messages: [{ role: 'user', content: 'hi' }] }) },
      created.data.apiKey,
    );
    expect(capped.status).toBe(402);
    expect((await json(capped)).error).toMatch(/^This API key's USD consumption limit of 0.000001 USD per epoch \(UTC day\) does not cover this request/);
    expect(upstream.requestCount).toBe(before);
  });

  it('serves usage history (cursor pages, CSV) and analytics to ADMIN keys only', async () => {
    const first = await http('/billing/usage-history?pageSize=10');
    expect(first.headers.get('x-pagination-limit')).toBe('10');
    expect(first.headers.get('x-pagination-page')).toBe('1');
    // Totals of the whole walk (counted at its first page, bounded: docs/billing.md).
    expect(first.headers.get('x-pagination-total')).toBe('8');
    expect(first.headers.get('x-pagination-total-pages')).toBe('1');
    const page = await json(first);
    expect(page.data.map((e: any) => e.sku)).toEqual([
      'e2e-upstream-llm-input-mtoken',
      'e2e-upstream-llm-output-mtoken',
      'e2e-upstream-llm-input-mtoken',
      'e2e-upstream-llm-output-mtoken',
      'e2e-upstream-llm-input-mtoken',
      'e2e-upstream-llm-output-mtoken',
      'e2e-upstream-llm-input-mtoken',
      'e2e-upstream-llm-output-mtoken',
    ]);
    expect(page.data[0]).toMatchObject({
      amount: -0.00000005,
      currency: 'USD',
      pricePerUnitUsd: 0.01,
      units: 0.000005,
      notes: 'API Inference',
      inferenceDetails: { promptTokens: 5, completionTokens: 8 },
    });
    expect(page.nextCursor).toBeNull();

    const small = await json(await http('/billing/usage-history?pageSize=10&currency=USD&startTimestamp=2000-01-01T00:00:00Z'));
    expect(small.data).toHaveLength(8);
    const withFilter = await http(`/billing/usage-history?cursor=AAAA&pageSize=10`);
    expect(withFilter.status).toBe(400);

    const csv = await http('/billing/usage-history', { headers: { accept: 'text/csv' } });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename=billing-usage-history-\d{8}T\d{9}Z\.csv$/);
    expect((await csv.text()).split('\r\n')[0]).toMatch(/^timestamp,sku,units,pricePerUnitUsd,amount,currency/);

    const analytics = await json(await http('/billing/usage-analytics?lookback=7d'));
    expect(analytics.lookback).toBe('7d');
    expect(analytics.byModel[0]).toMatchObject({ modelName: 'E2E Upstream', modelType: 'LLM', unitType: 'tokens' });
    expect(analytics.byKey[0]).toMatchObject({ description: 'Bootstrap admin key (SVC_ADMIN_KEY)' });
    expect(analytics.topKeyNames).toEqual(['Bootstrap admin key (SVC_ADMIN_KEY)']);
    expect((await http('/billing/usage-analytics?lookback=91d')).status).toBe(400);

    const inference = await json(
      await http('/api_keys', { method: 'POST', body: JSON.stringify({ apiKeyType: 'INFERENCE', description: 'no billing access' }) }),
    );
    const denied = await http('/billing/balance', {}, inference.data.apiKey);
    expect(denied.status).toBe(401);
    expect(await json(denied)).toEqual({ error: 'Admin API key required' });
  });

  it('lets the operator credit and stake DIEM from the CLI; requests then draw DIEM first', async () => {
    const account = await onlyAccount();
    const credited = JSON.parse((await cli('credit', '--account', account, '--usd', '2.5', '--reason', 'e2e top-up')).stdout);
    expect(credited).toMatchObject({ status: 'applied', creditedUsd: '2.50' });
    expectedUsd += 2_500_000_000n;
    await cli('stake', '--account', account, '--diem', '1');
    try {
      const balance = await json(await http('/billing/balance'));
      expect(balance).toMatchObject({ consumptionCurrency: 'DIEM', balances: { diem: 1 }, diemEpochAllocation: 1 });
      const { data, response } = await admin.chat.completions
        .create({ model: 'e2e-upstream', messages: [{ role: 'user', content: 'one two' }], max_tokens: 8 })
        .withResponse();
      expect((data as unknown as { cost: unknown }).cost).toEqual({ usd: 0, diem: 0.00000018 });
      expect(response.headers.get('x-svc-balance-diem')).toBe('1.00');
      await expectBalance(1_000_000_000n - cost(2, 8), 'x-svc-balance-diem');
      await expectUsdBalance(expectedUsd);
      // Newest first, since the stake: the lease's HOLD, the one CHARGE and RELEASEs (the charged part
      // moved out of the hold and, once the lease is idle for 1 s, the unused rest: whether that has
      // happened yet depends on the machine's speed, so the entries are checked as a set).
      const ledger = JSON.parse((await cli('ledger', '--account', account, '--limit', '6')).stdout);
      const lines: string[] = ledger.entries.map((e: any) => `${e.kind} ${e.currency} ${e.amount}`);
      const sinceStake = lines.slice(0, lines.indexOf('STAKE DIEM 1.00') + 1);
      expect(sinceStake.at(-1)).toBe('STAKE DIEM 1.00');
      expect(sinceStake.filter((l) => l.startsWith('CHARGE'))).toEqual(['CHARGE DIEM -0.00000018']);
      expect(sinceStake.filter((l) => l.startsWith('HOLD'))).toEqual([expect.stringMatching(/^HOLD DIEM 0\.\d+$/)]);
      expect(sinceStake.filter((l) => l.startsWith('RELEASE')).every((l) => /^RELEASE DIEM -0\.\d+$/.test(l))).toBe(true);
      expect(sinceStake.length).toBeGreaterThanOrEqual(4);
      expect(JSON.parse((await cli('reconcile')).stdout)).toMatchObject({ ok: true, mismatches: [] });
    } finally {
      await cli('stake', '--account', account, '--diem', '0');
    }
  });

  it('stops spending DIEM as soon as the operator takes the stake away, though a gateway holds a DIEM lease', async () => {
    const account = await onlyAccount();
    const ask = async () =>
      (await admin.chat.completions.create({ model: 'e2e-upstream', messages: [{ role: 'user', content: 'one two' }], max_tokens: 8 })) as unknown as {
        cost: { usd: number; diem: number };
      };
    await cli('stake', '--account', account, '--diem', '1');
    try {
      // The gateway admits this one under a DIEM lease it keeps for the next requests.
      expect((await ask()).cost).toEqual({ usd: 0, diem: 0.00000018 });
    } finally {
      await cli('stake', '--account', account, '--diem', '0');
    }
    // Well within the lease's idle time: the change reached the gateway, which retired the lease.
    expect((await ask()).cost).toEqual({ usd: 0.00000018, diem: 0 });
    expectedUsd -= cost(2, 8);
    await expectUsdBalance(expectedUsd);
    expect(JSON.parse((await cli('reconcile')).stdout)).toMatchObject({ ok: true, mismatches: [] });
  });

  it('leaves no lost or stuck credit when the chat service is killed mid-stream', async () => {
    upstream.configure({ completionTokens: 200, tokenDelayMs: 40 });
    const res = await http('/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: 'e2e-upstream', messages: [{ role: 'user', content: 'Talk until stopped' }], stream: true }),
    });
    const requestId = res.headers.get('cf-ray')!;
    const reader = res.body!.getReader();
    let text = await readUntil(reader, 3);

    const ready = platform
      .output()
      .split('\n')
      .filter((l) => l.includes('"chat service ready"'));
    const pid = JSON.parse(ready.at(-1)!).pid as number;
    process.kill(pid, 'SIGKILL');
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    upstream.configure({ completionTokens: 8, tokenDelayMs: 0 });
    expect(text).toContain('The stream was interrupted: the service stopped responding.');
    // The gateway's own count is what settles: the client got every chunk it relayed.
    const relayed = (text.match(/"content":" ?tok\d/g) ?? []).length;
    expectedUsd -= cost(await reservedPromptTokens(requestId), relayed);
    await expectUsdBalance(expectedUsd);

    // start.js restarts the chat service; the platform serves and bills again.
    let next: Response | undefined;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      next = await http('/chat/completions', {
        method: 'POST',
        body: JSON.stringify({ model: 'e2e-upstream', messages: [{ role: 'user', content: 'back' }], max_tokens: 2 }),
      });
      if (next.status === 200) break;
    }
    expect(next?.status).toBe(200);
    expectedUsd -= cost(1, 2);
    await expectUsdBalance(expectedUsd);
  });
});
