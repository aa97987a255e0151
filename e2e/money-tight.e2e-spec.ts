import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { RpcClient } from '@svc/messaging';
import { RunningPlatform, startPlatform } from '@svc/testing';
import { accountWithKey } from './support/accounts';
import { settledAvailable } from './support/settled-available';

/**
 * Issue 29, "admit every request the credit can pay for, and still never one more": a key limit or
 * a balance worth N requests of the embedded default model (N measured from a served request's
 * charge) serves at least N - 1 and at most N of many fired at once, and never spends beyond it.
 * The byte bound of a prompt is about four times its tokens, so before the exact count at the
 * margin (docs/billing.md, "Exact at the margin") these rows admitted 0 of 3 and 1 of 5.
 */
const SIXTY_WORDS = Array.from({ length: 60 }, (_, i) => ['lamp', 'river', 'stone', 'quiet', 'morning', 'bread'][i % 6]).join(' ');

interface Row {
  name: string;
  body: Record<string, unknown>;
  /** The limit (or the balance) is `worth` times one served request's charge. */
  worth: number;
  concurrency: number;
  /** A key limit (the account has plenty), or the account's balance (the key has no limit). */
  on: 'key limit' | 'balance';
  /** Default /chat/completions. */
  route?: string;
}

const hello = (extra: Record<string, unknown>) => ({ model: 'default', messages: [{ role: 'user', content: 'Hello' }], temperature: 0, seed: 7, ...extra });

const ROWS: Row[] = [
  { name: '"Hello", max_tokens 8, the default system prompt', body: hello({ max_tokens: 8 }), worth: 3.5, concurrency: 40, on: 'key limit' },
  { name: 'the same with max_tokens 64', body: hello({ max_tokens: 64 }), worth: 3.5, concurrency: 40, on: 'key limit' },
  {
    name: 'without the system prompt',
    body: hello({ max_tokens: 8, svc_parameters: { include_svc_system_prompt: false } }),
    worth: 3.5,
    concurrency: 40,
    on: 'key limit',
  },
  {
    name: 'a 60-word prompt',
    body: { model: 'default', messages: [{ role: 'user', content: SIXTY_WORDS }], max_tokens: 8, temperature: 0, seed: 7 },
    worth: 3.5,
    concurrency: 40,
    on: 'key limit',
  },
  { name: 'a balance worth 5 requests, 100 at once', body: hello({ max_tokens: 8 }), worth: 5.5, concurrency: 100, on: 'balance' },
  {
    name: 'a key limit worth 3 requests with max_tokens 64 (capped), 200 at once',
    body: hello({ max_tokens: 64 }),
    worth: 3.5,
    concurrency: 200,
    on: 'key limit',
  },
  {
    name: 'a raw completion of a 60-word prompt (POST /completions: counted at the margin as it is run, no template)',
    body: { model: 'default', prompt: SIXTY_WORDS, max_tokens: 8, temperature: 0, seed: 7 },
    worth: 3.5,
    concurrency: 40,
    on: 'key limit',
    route: '/completions',
  },
  {
    name: 'embeddings of a 60-word text (byte bound: about 5 times its tokens)',
    body: { model: 'text-embedding-3-small', input: SIXTY_WORDS },
    worth: 3.5,
    concurrency: 40,
    on: 'key limit',
    route: '/embeddings',
  },
  { name: 'a key limit worth 1 request, streamed', body: hello({ max_tokens: 8, stream: true }), worth: 1.5, concurrency: 40, on: 'key limit' },
];

describe('money v3: a key limit or a balance worth N requests serves N - 1 to N of them (issue 29)', () => {
  let platform: RunningPlatform;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let db: Client;

  beforeAll(async () => {
    platform = await startPlatform({ env: { RATE_LIMITS_ENABLED: 'false', ABUSE_PROTECTION_ENABLED: 'false', LOG_LEVEL: 'warn' } });
    nc = await connect({ servers: platform.env.NATS_URL });
    rpc = new RpcClient(nc, 10_000);
    db = new Client({ connectionString: platform.env.BILLING_DATABASE_URL });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await nc?.close();
    await platform?.stop();
  });

  const account = (balanceNano: bigint, limitNano: bigint | null) => accountWithKey(rpc, db, balanceNano, limitNano);

  const send = (key: string, body: Record<string, unknown>, route = '/chat/completions') =>
    fetch(`${platform.apiUrl}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it.each(ROWS)('$name: worth $worth requests, $concurrency at once', async ({ body, worth, concurrency, on, route }) => {
    // One request's charge, on an account of its own with room for it.
    const probe = await account(10n ** 9n, null);
    const one = await send(probe.key, body, route);
    expect({ status: one.status, body: one.status === 200 ? '' : await one.text() }).toEqual({ status: 200, body: '' });
    await one.text();
    const unit = 10n ** 9n - (await settledAvailable(db, probe.account));
    expect(unit).toBeGreaterThan(0n);

    const N = Math.floor(worth);
    const worthNano = (unit * BigInt(Math.round(worth * 10))) / 10n;
    const balance = on === 'balance' ? worthNano : 10n ** 9n;
    const { account: id, key } = await account(balance, on === 'key limit' ? worthNano : null);
    const statuses: Record<number, number> = {};
    const unexpected: string[] = [];
    const capped: number[] = [];
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        const res = await send(key, body, route);
        const text = await res.text();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const cap = res.headers.get('x-svc-completion-capped');
        if (cap !== null) capped.push(Number(cap));
        if (res.status !== 200 && res.status !== 402) unexpected.push(`${res.status} ${text.slice(0, 200)}`);
      }),
    );
    const spent = balance - (await settledAvailable(db, id));
    expect(unexpected).toEqual([]);
    const served = statuses[200] ?? 0;
    expect({ served, atLeast: served >= N - 1, atMost: served <= N }).toEqual({ served, atLeast: true, atMost: true });
    expect(spent).toBeLessThanOrEqual(worthNano);
    expect(spent).toBe(unit * BigInt(served));
    // A completion capped at the margin keeps at least 16 tokens, below what the request asked for.
    for (const cap of capped) expect(cap >= 16 && cap < Number(body.max_tokens)).toBe(true);
  });

  it('a request whose completion does not fit the credit left is served with it capped to what the credit covers, and says so', async () => {
    // 1,000 nano-USD: the prompt (about 50 tokens at 10 nano) and 16 to 25 completion tokens (20 nano each), not the model's cap of 200.
    const { key } = await account(10n ** 9n, 1_000n);
    const res = await send(key, { model: 'default', messages: [{ role: 'user', content: 'Hello' }], temperature: 0 });
    expect(res.status).toBe(200);
    const cap = Number(res.headers.get('x-svc-completion-capped'));
    expect(cap).toBeGreaterThanOrEqual(16);
    expect(cap).toBeLessThan(200);
    const { usage } = (await res.json()) as { usage: { completion_tokens: number } };
    expect(usage.completion_tokens).toBeLessThanOrEqual(cap);
  });

  it('a request that sets no max_tokens and does not fit even 16 completion tokens is told what it was priced for, and that a smaller max_tokens needs less', async () => {
    const { key } = await account(10n ** 9n, 500n);
    const res = await send(key, { model: 'default', messages: [{ role: 'user', content: 'Hello' }] });
    expect(res.status).toBe(402);
    const { error } = (await res.json()) as { error: string };
    expect(error).toMatch(/consumption limit/);
    expect(error).toMatch(/sets no max_tokens, so it was priced for .+ completion cap of \d+ tokens; with a smaller max_tokens it needs less credit\.$/);
  });
});
