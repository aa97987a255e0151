import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { clusterEnv, GATEWAYS, sleep } from './support/cluster';
import { recordResult } from './support/results';

/**
 * Two gateways competing for one account (issue 28): 40 or 200 requests at once, alternating
 * between the two replicas, on a balance or a key limit worth N = 5 or 100 of them. Each gateway admits against
 * billing (reservations, or credit leases for large balances), so together they may still admit
 * at most N, and charge exactly what they served. Embeddings: their price depends on the input
 * only, so every request costs the same.
 */
const CASES = [
  { limit: 'balance', n: 5, concurrency: 40 },
  { limit: 'key limit', n: 5, concurrency: 40 },
  // worth enough for credit leases: each gateway admits from its own lease, without a message
  { limit: 'balance', n: 100, concurrency: 200 },
  { limit: 'key limit', n: 100, concurrency: 200 },
] as const;
const BODY = { model: 'text-embedding-3-small', input: 'the keeper of the lighthouse wrote down every ship that passed in the night' };

describe('two gateways competing for one account', () => {
  let env: Record<string, string>;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let db: Client;
  let unitCost: bigint;

  beforeAll(async () => {
    env = await clusterEnv();
    nc = await connect({ servers: env.NATS_URL.split(',') });
    rpc = new RpcClient(nc, 10_000);
    db = new Client({ connectionString: env.BILLING_DATABASE_URL });
    await db.connect();
    const rich = await newAccount(null, 1_000_000_000n);
    expect((await embed(GATEWAYS[0], rich.key)).status).toBe(200);
    unitCost = await chargedOnce(rich.account);
    expect(unitCost).toBeGreaterThan(0n);
  });

  /** The charge of the account's one request, once settled. */
  async function chargedOnce(account: string): Promise<bigint> {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(100)) {
      const { rows } = await db.query<{ charged: string }>(`SELECT charged_nano AS charged FROM reservations WHERE account_id = $1 AND status = 'SETTLED'`, [
        account,
      ]);
      if (rows.length) return BigInt(rows[0].charged);
    }
    throw new Error('the request was not settled within 20 s');
  }

  afterAll(async () => {
    await db?.end();
    await nc?.close();
  });

  const embed = (api: string, key: string) =>
    fetch(`${api}/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(BODY),
    }).then(async (res) => ({ status: res.status, body: await res.text() }));

  async function newAccount(limitNano: bigint | null, creditNano: bigint): Promise<{ account: string; key: string }> {
    const { accountId } = await rpc.send(KEYS.CREATE_ACCOUNT, { name: `cluster competing ${Date.now()}` });
    const { apiKey } = await rpc.send(KEYS.CREATE, {
      accountId,
      apiKeyType: 'INFERENCE',
      description: 'cluster competing gateways',
      expiresAt: null,
      consumptionLimits: { usd: limitNano === null ? null : Number(limitNano) / 1e9, diem: null },
      limitPeriod: 'LIFETIME',
      modelPrivacy: 'ALL',
    });
    await db.query(`SELECT * FROM billing_adjust($1, 'CREDIT', $2, 'cluster test', NULL)`, [accountId, creditNano.toString()]);
    return { account: accountId, key: apiKey };
  }

  /**
   * What the account was charged once every served request's charge has landed (settlement is
   * batched), and its balance. Holds are left out: a request that failed with a 503 on this busy
   * machine may keep its hold until the sweeper's TTL (docs/billing.md, "Crash cases"), which
   * spends nothing.
   */
  async function settledSpending(account: string, served: number): Promise<{ charged: bigint; uncollected: bigint; balance: bigint }> {
    const read = async () => {
      const { rows } = await db.query<{ charged: string; uncollected: string; balance: string }>(
        `SELECT coalesce(sum(charged_nano), 0) AS charged, coalesce(sum(uncollected_nano), 0) AS uncollected,
                (SELECT balance_usd_nano FROM billing_accounts WHERE id = $1) AS balance
           FROM reservations WHERE account_id = $1`,
        [account],
      );
      return { charged: BigInt(rows[0].charged), uncollected: BigInt(rows[0].uncollected), balance: BigInt(rows[0].balance) };
    };
    for (const deadline = Date.now() + 20_000; Date.now() < deadline && (await read()).charged < unitCost * BigInt(served);) await sleep(100);
    await sleep(1_500); // a late settlement beyond what was served would land within the grace
    return read();
  }

  it.each(CASES)('a $limit worth $n requests admits at most $n of $concurrency sent at once through both gateways', async ({ limit, n, concurrency }) => {
    const worth = unitCost * BigInt(n) + unitCost / 2n;
    const { account, key } = limit === 'balance' ? await newAccount(null, worth) : await newAccount(worth, worth * 100n);
    const answers = await Promise.all(Array.from({ length: concurrency }, (_, i) => embed(GATEWAYS[i % 2], key)));
    const statuses = answers.reduce<Record<number, number>>((acc, a) => ({ ...acc, [a.status]: (acc[a.status] ?? 0) + 1 }), {});
    const served = answers.filter((a) => a.status === 200).length;
    const servedBy = GATEWAYS.map((_, g) => answers.filter((a, i) => i % 2 === g && a.status === 200).length);
    const spent = await settledSpending(account, served);
    recordResult(`two gateways, one ${limit} worth ${n}`, {
      sent: concurrency,
      served,
      servedBy,
      statuses,
      chargedNano: String(spent.charged),
      worthNano: String(worth),
    });
    // 503: a request the busy machine could not serve in time (not admitted money, never charged).
    expect(Object.keys(statuses).every((s) => s === '200' || s === '402' || s === '503')).toBe(true);
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served).toBeLessThanOrEqual(n);
    expect(spent.uncollected).toBe(0n);
    expect(spent.charged).toBe(unitCost * BigInt(served));
    expect(spent.balance).toBe((limit === 'balance' ? worth : worth * 100n) - spent.charged);
  });
});
