import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { REPO_ROOT } from '@svc/config';
import { KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { freePort, RunningPlatform, ServiceProcess, startFakeOpenAiUpstream, startPlatform, startService } from '@svc/testing';

/**
 * Money is never spent beyond a balance or a key's limit, whatever the request adds to its prompt
 * (issue 14): realistic requests (the service's default system prompt, a character with a
 * 2,000-character persona, `n` = 2, web search against a local search server, streaming and not)
 * fired 40 and 200 at a time, through one and through two gateway replicas. The upstream counts
 * one prompt token per byte, the most any byte-level tokenizer can, so a hold that forgets part
 * of the prompt shows up as an uncollected charge or a balance spent beyond what it paid for.
 * Balances worth N = 5 requests are reserved request by request; balances and limits worth
 * N = 100 are admitted under credit leases (docs/billing.md, "Leases"), which must be as exact,
 * and must come back when a gateway replica dies holding one.
 */
const PERSONA = `You are Captain Verity, a careful lighthouse keeper who answers in plain words. ${'Keep the lamp lit and the log exact. '.repeat(55)}`.slice(
  0,
  2000,
);
const N = 5;
/** Enough for credit leases: a lease takes at most a quarter of what is available, and at least 16 worst cases. */
const LEASED_N = 100;
/** Short lease times, so a dead replica's lease comes back within the test. */
const LEASE_TTL_MS = 4_000;
const SETTLE_GRACE_MS = 1_000;

describe('holds cover every charge (issue 14)', () => {
  let platform: RunningPlatform;
  let closeUpstream: () => Promise<void>;
  let search: Server;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let db: Client;
  let second: ServiceProcess;
  let secondApi: string;
  /** The cost of one realistic request, measured on the bootstrap account. */
  let unitCost: bigint;

  beforeAll(async () => {
    const started = await startFakeOpenAiUpstream({ completionTokens: 8, promptTokens: 'bytes', recordLimit: 0 });
    const slow = await startFakeOpenAiUpstream({ completionTokens: 8, promptTokens: 'bytes', recordLimit: 0, firstTokenDelayMs: 1_500 });
    closeUpstream = () => Promise.all([started.close(), slow.close()]).then(() => undefined);
    search = createServer((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          query: q,
          results: [1, 2, 3, 4, 5].map((i) => ({
            title: `Result ${i}`,
            url: `https://example.com/${i}`,
            content: `Snippet ${i}. ${'The harbour lamp burns whale oil. '.repeat(30)}`,
          })),
        }),
      );
    });
    await new Promise<void>((resolve) => search.listen(0, '127.0.0.1', resolve));
    platform = await startPlatform({
      env: {
        SVC_CATALOG_PATH: path.join(REPO_ROOT, 'e2e/fixtures/money-catalog.yaml'),
        E2E_UPSTREAM_URL: started.baseUrl,
        E2E_SLOW_UPSTREAM_URL: slow.baseUrl,
        SEARXNG_URL: `http://127.0.0.1:${(search.address() as AddressInfo).port}`,
        // Money, not request rates, is under test: 200 concurrent requests must reach admission.
        RATE_LIMITS_ENABLED: 'false',
        ABUSE_PROTECTION_ENABLED: 'false',
        LOG_LEVEL: 'warn',
        BILLING_LEASE_TTL_MS: String(LEASE_TTL_MS),
        BILLING_LEASE_ADMIT_MS: '1500',
        BILLING_SETTLE_GRACE_MS: String(SETTLE_GRACE_MS),
        BILLING_SWEEP_INTERVAL_MS: '500',
      },
    });
    const env = platform.env;
    nc = await connect({ servers: env.NATS_URL });
    rpc = new RpcClient(nc, 10_000);
    db = new Client({ connectionString: env.BILLING_DATABASE_URL });
    await db.connect();
    const port = await freePort();
    second = startService('gateway', 'apps/gateway/src/main.ts', { ...env, PORT: String(port), LOG_LEVEL: 'info' });
    await second.waitFor('gateway listening', 90_000);
    secondApi = `http://127.0.0.1:${port}/api/v1`;

    const character = await post(platform.apiUrl, platform.adminKey, '/characters', {
      slug: 'captain-verity',
      name: 'Captain Verity',
      systemPrompt: PERSONA,
      modelId: 'money-upstream',
    });
    expect(character.status).toBe(200);
    // One request on a rich account: what a request of this shape really costs.
    const before = await available(await bootstrapAccount());
    const one = await post(platform.apiUrl, platform.adminKey, '/chat/completions', realistic(false));
    expect(one.status).toBe(200);
    unitCost = before - (await settledAvailable(await bootstrapAccount()));
    expect(unitCost).toBeGreaterThan(2_000n * 10n); // the persona alone is 2,000 prompt tokens
  }, 180_000);

  afterAll(async () => {
    await second?.stop();
    await db?.end();
    await nc?.close();
    await platform?.stop();
    await closeUpstream?.();
    search?.close();
  });

  const realistic = (stream: boolean) => ({
    model: 'default',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 8,
    n: 2,
    stream,
    svc_parameters: { character_slug: 'captain-verity', enable_web_search: 'on' },
  });

  async function post(api: string, key: string, pathname: string, body: unknown): Promise<{ status: number; text: string }> {
    const res = await fetch(`${api}${pathname}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  }

  /** The first account billing knows: the bootstrap account, credited at start. */
  async function bootstrapAccount(): Promise<string> {
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM billing_accounts ORDER BY created_at LIMIT 1`);
    return rows[0].id;
  }

  async function available(account: string): Promise<bigint> {
    const { rows } = await db.query<{ a: string }>(`SELECT balance_usd_nano - held_usd_nano AS a FROM billing_accounts WHERE id = $1`, [account]);
    return BigInt(rows[0]?.a ?? '0');
  }

  /** Open holds of the account: reservations and credit leases. */
  async function openHolds(account: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM reservations WHERE account_id = $1 AND status = 'HELD') + (SELECT count(*) FROM leases WHERE account_id = $1 AND status <> 'CLOSED') AS n`,
      [account],
    );
    return Number(rows[0].n);
  }

  /** The available balance once no hold of the account is open (settlement is asynchronous; an idle lease closes within about a second). */
  async function settledAvailable(account: string, withinMs = 20_000): Promise<bigint> {
    for (const deadline = Date.now() + withinMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      if ((await openHolds(account)) === 0) return available(account);
    }
    throw new Error(`holds were still open after ${withinMs} ms`);
  }

  async function leasesOf(account: string): Promise<number> {
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM leases WHERE account_id = $1`, [account]);
    return Number(rows[0].n);
  }

  async function newAccount(limit: bigint | null, credit: bigint): Promise<{ account: string; key: string }> {
    const { accountId } = await rpc.send(KEYS.CREATE_ACCOUNT, { name: `money ${Date.now()}` });
    const usd = limit === null ? null : Number(limit) / 1e9;
    const { apiKey } = await rpc.send(KEYS.CREATE, {
      accountId,
      apiKeyType: 'INFERENCE',
      description: 'money',
      expiresAt: null,
      consumptionLimits: { usd, diem: null },
      limitPeriod: 'LIFETIME',
      modelPrivacy: 'ALL',
    });
    await db.query(`SELECT * FROM billing_adjust($1, 'CREDIT', $2, 'money test', NULL)`, [accountId, credit.toString()]);
    return { account: accountId, key: apiKey };
  }

  /** Fires `count` requests at once (half streaming), alternating between the replicas given; returns how many were served in full. */
  async function burst(key: string, count: number, apis: string[]): Promise<{ served: number; statuses: Record<number, number> }> {
    const statuses: Record<number, number> = {};
    const answers = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const stream = i % 2 === 1;
        const answer = await post(apis[i % apis.length], key, '/chat/completions', realistic(stream));
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        return answer.status === 200 && (!stream || answer.text.trimEnd().endsWith('data: [DONE]'));
      }),
    );
    return { served: answers.filter(Boolean).length, statuses };
  }

  /** Everything charged to the account, and what was charged beyond what it could pay or beyond a hold. */
  async function spending(account: string): Promise<{ charged: bigint; uncollected: bigint }> {
    const { rows } = await db.query<{ charged: string; uncollected: string }>(
      `SELECT coalesce(sum(charged_nano), 0) AS charged, coalesce(sum(uncollected_nano), 0) AS uncollected FROM reservations WHERE account_id = $1`,
      [account],
    );
    return { charged: BigInt(rows[0].charged), uncollected: BigInt(rows[0].uncollected) };
  }

  const cases = [
    { limit: 'balance', n: N, concurrency: 40, replicas: 1 },
    { limit: 'balance', n: N, concurrency: 200, replicas: 1 },
    { limit: 'balance', n: N, concurrency: 40, replicas: 2 },
    { limit: 'balance', n: N, concurrency: 200, replicas: 2 },
    { limit: 'key limit', n: N, concurrency: 40, replicas: 1 },
    { limit: 'key limit', n: N, concurrency: 200, replicas: 2 },
    { limit: 'balance', n: LEASED_N, concurrency: 200, replicas: 2 },
    { limit: 'key limit', n: LEASED_N, concurrency: 200, replicas: 2 },
  ] as const;

  it.each(cases)(
    'a $limit worth $n requests serves $n - 1 to $n, each paid in full ($concurrency at once, $replicas replica(s))',
    async ({ limit, n, concurrency, replicas }) => {
      const worth = unitCost * BigInt(n) + unitCost / 2n;
      const { account, key } = limit === 'balance' ? await newAccount(null, worth) : await newAccount(worth, worth * 100n);
      const apis = replicas === 2 ? [platform.apiUrl, secondApi] : [platform.apiUrl];
      const { served, statuses } = await burst(key, concurrency, apis);
      const after = await settledAvailable(account);
      const { charged, uncollected } = await spending(account);

      expect(Object.keys(statuses).every((s) => s === '200' || s === '402')).toBe(true);
      // Tight as well as exact (issue 29): the last request the credit can pay for is served too,
      // whichever replica it reached, with its web context held at what a count found, not its cap.
      expect({ served, atLeast: served >= n - 1, atMost: served <= n }).toEqual({ served, atLeast: true, atMost: true });
      expect(uncollected).toBe(0n);
      expect(charged).toBe(unitCost * BigInt(served));
      expect(charged).toBeLessThanOrEqual(worth);
      if (limit === 'balance') expect(after).toBe(worth - charged);
      else expect(after).toBe(worth * 100n - charged);
      // Small balances and limits are reserved request by request; large ones went through leases.
      if (n === N) expect(await leasesOf(account)).toBe(0);
      else expect(await leasesOf(account)).toBeGreaterThan(0);
    },
  );

  it('returns the credit a dead gateway replica held in its lease, within the lease time, charging what it served', async () => {
    const { account, key } = await newAccount(null, unitCost * 1_000n);
    const port = await freePort();
    const doomed = startService('gateway', 'apps/gateway/src/main.ts', { ...platform.env, PORT: String(port), LOG_LEVEL: 'info' });
    await doomed.waitFor('gateway listening', 90_000);
    const { served } = await burst(key, 6, [`http://127.0.0.1:${port}/api/v1`]);
    expect(served).toBe(6);
    await doomed.kill();
    const killedAt = Date.now();
    expect(await available(account)).toBeLessThan(unitCost * 1_000n - unitCost * 6n); // the lease still holds its block
    const after = await settledAvailable(account, LEASE_TTL_MS + SETTLE_GRACE_MS + 10_000);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_TTL_MS + SETTLE_GRACE_MS + 5_000);
    expect((await spending(account)).charged).toBe(unitCost * 6n);
    expect(after).toBe(unitCost * 1_000n - unitCost * 6n);
  });

  it.each(['money-upstream-counted', 'money-upstream-llamacpp'])(
    'counts an upstream prompt with its tokenizer at the margin (%s): a key limit worth 3.5 requests serves 3 of 40 (issue 29)',
    async (model) => {
      // max_tokens 8: no room to cap the completion, so only the exact count admits the third.
      const hello = { model, messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 8 };
      const probe = await newAccount(null, 10n ** 9n);
      expect((await post(platform.apiUrl, probe.key, '/chat/completions', hello)).status).toBe(200);
      const unit = 10n ** 9n - (await settledAvailable(probe.account));
      const worth = (unit * 35n) / 10n;
      const { account, key } = await newAccount(worth, 10n ** 9n);
      const answers = await Promise.all(Array.from({ length: 40 }, () => post(platform.apiUrl, key, '/chat/completions', hello)));
      const served = answers.filter((a) => a.status === 200).length;
      expect(answers.filter((a) => a.status !== 200 && a.status !== 402).map((a) => a.text)).toEqual([]);
      expect(served).toBe(3);
      expect(10n ** 9n - (await settledAvailable(account))).toBe(unit * 3n);
    },
  );

  it('holds the web context a count found at the margin, not its cap: a key limit worth 3.5 web-searched requests serves 3 of 40, on two replicas (issue 29)', async () => {
    // The byte bound counts 16 KiB of context; the search here finds about 5 KiB. Without a fee
    // per search the hold is mostly prompt, so the cap alone would make it about three times the cost.
    const web = { model: 'money-upstream-web', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8, svc_parameters: { enable_web_search: 'on' } };
    const probe = await newAccount(null, 10n ** 9n);
    expect((await post(platform.apiUrl, probe.key, '/chat/completions', web)).status).toBe(200);
    const unit = 10n ** 9n - (await settledAvailable(probe.account));
    const worth = (unit * 35n) / 10n;
    const { account, key } = await newAccount(worth, 10n ** 9n);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => post(i % 2 ? secondApi : platform.apiUrl, key, '/chat/completions', web)));
    expect(answers.filter((a) => a.status !== 200 && a.status !== 402).map((a) => a.text)).toEqual([]);
    expect(answers.filter((a) => a.status === 200).length).toBe(3);
    expect(10n ** 9n - (await settledAvailable(account))).toBe(unit * 3n);
  });

  it("admits a request on one replica once another replica's request in flight settles, instead of refusing it (issue 29, two replicas)", async () => {
    const slowHello = { model: 'money-upstream-slow', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 };
    const probe = await newAccount(null, 10n ** 9n);
    expect((await post(platform.apiUrl, probe.key, '/chat/completions', slowHello)).status).toBe(200);
    await settledAvailable(probe.account);
    const { rows } = await db.query<{ held: string; charged: string }>(
      `SELECT held_nano AS held, charged_nano AS charged FROM reservations WHERE account_id = $1`,
      [probe.account],
    );
    const [hold, unit] = [BigInt(rows[0].held), BigInt(rows[0].charged)];
    expect(hold).toBeGreaterThan(unit);
    // Room for one request's charge and another's hold: while the first holds its worst case, the
    // second does not fit; once the first is charged what it cost, it does.
    const limit = unit + hold + (hold - unit) / 2n;
    const { account, key } = await newAccount(limit, 10n ** 9n);
    const first = post(platform.apiUrl, key, '/chat/completions', slowHello);
    await new Promise((r) => setTimeout(r, 300));
    const second = await post(secondApi, key, '/chat/completions', slowHello);
    expect({ first: (await first).status, second: second.status, body: second.status === 200 ? '' : second.text }).toEqual({
      first: 200,
      second: 200,
      body: '',
    });
    expect(10n ** 9n - (await settledAvailable(account))).toBe(unit * 2n);
  });

  it('never logs that a settlement exceeded its hold', () => {
    expect(platform.output()).not.toMatch(/exceeded its hold/);
    expect(second.output()).not.toMatch(/exceeded its hold/);
  });
});
