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
    unitCost = 1_000_000_000n - (await settledAvailable(rich.account));
    expect(unitCost).toBeGreaterThan(0n);
  });

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

  async function settledAvailable(account: string): Promise<bigint> {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(100)) {
      const { rows } = await db.query<{ open: string; available: string }>(
        `SELECT (SELECT count(*) FROM reservations WHERE account_id = $1 AND status = 'HELD') + (SELECT count(*) FROM leases WHERE account_id = $1 AND status <> 'CLOSED') AS open,
                (SELECT balance_usd_nano - held_usd_nano FROM billing_accounts WHERE id = $1) AS available`,
        [account],
      );
      if (Number(rows[0].open) === 0) return BigInt(rows[0].available);
    }
    throw new Error('holds still open after 20 s');
  }

  async function charged(account: string): Promise<{ charged: bigint; uncollected: bigint }> {
    const { rows } = await db.query<{ charged: string; uncollected: string }>(
      `SELECT coalesce(sum(charged_nano), 0) AS charged, coalesce(sum(uncollected_nano), 0) AS uncollected FROM reservations WHERE account_id = $1`,
      [account],
    );
    return { charged: BigInt(rows[0].charged), uncollected: BigInt(rows[0].uncollected) };
  }

  it.each(CASES)('a $limit worth $n requests admits at most $n of $concurrency sent at once through both gateways', async ({ limit, n, concurrency }) => {
    const worth = unitCost * BigInt(n) + unitCost / 2n;
    const { account, key } = limit === 'balance' ? await newAccount(null, worth) : await newAccount(worth, worth * 100n);
    const answers = await Promise.all(Array.from({ length: concurrency }, (_, i) => embed(GATEWAYS[i % 2], key)));
    const statuses = answers.reduce<Record<number, number>>((acc, a) => ({ ...acc, [a.status]: (acc[a.status] ?? 0) + 1 }), {});
    const served = answers.filter((a) => a.status === 200).length;
    const servedBy = GATEWAYS.map((_, g) => answers.filter((a, i) => i % 2 === g && a.status === 200).length);
    const after = await settledAvailable(account);
    const spent = await charged(account);
    recordResult(`two gateways, one ${limit} worth ${n}`, {
      sent: concurrency,
      served,
      servedBy,
      statuses,
      chargedNano: String(spent.charged),
      worthNano: String(worth),
    });
    expect(Object.keys(statuses).every((s) => s === '200' || s === '402')).toBe(true);
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served).toBeLessThanOrEqual(n);
    expect(spent.uncollected).toBe(0n);
    expect(spent.charged).toBe(unitCost * BigInt(served));
    expect(after).toBe((limit === 'balance' ? worth : worth * 100n) - spent.charged);
  });
});
