import { randomUUID } from 'node:crypto';
import { INestMicroservice } from '@nestjs/common';
import { BILLING, BillableUsage, LeaseOpenReply, LeaseOpenRequest, ReserveReply, SettledUsage, SettleReply, SettleRequest } from '@svc/contracts';
import { ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { loadServiceConfig } from '../../src/config';
import { LeasesRepository } from '../../src/leases/leases.repository';
import { LeasesService } from '../../src/leases/leases.service';
import { BILLING_LOGGER } from '../../src/shared/logger.token';
import { BillingHarness, cost, createBillingHarness, KEY, newAccount, PRICING, text, usd } from './support/billing-harness';

let h: BillingHarness;
let replicas: INestMicroservice[];
const GRACE_MS = 100;

beforeAll(async () => {
  h = await createBillingHarness('billing_lease', { BILLING_SETTLE_GRACE_MS: String(GRACE_MS), BILLING_DB_POOL_MAX: '8' });
  // Two replicas in the queue group, as in production.
  replicas = await Promise.all([h.start(), h.start()]);
});
afterAll(() => h?.stop(), 60_000);
afterEach(() => jest.restoreAllMocks());

const WORST = text(100, 100);
/** The worst case of one request: 100 * 10 + 100 * 20 nano. */
const UNIT = cost(100, 100);
const MODEL = { id: 'tiny', name: 'Tiny', type: 'text' };
const NO_LIMITS = { usd: null, diem: null, period: 'EPOCH' as const };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Granted = Extract<LeaseOpenReply, { outcome: 'granted' }>;

function openLease(accountId: string, over: Partial<LeaseOpenRequest> = {}): Promise<LeaseOpenReply> {
  return h.rpc.send(BILLING.LEASE_OPEN, {
    leaseId: randomUUID(),
    accountId,
    apiKeyId: null,
    keyLimits: NO_LIMITS,
    unitNano: { usd: UNIT.toString(), diem: UNIT.toString() },
    ...over,
  });
}

async function granted(accountId: string, over: Partial<LeaseOpenRequest> = {}): Promise<Granted> {
  const reply = await openLease(accountId, over);
  if (reply.outcome !== 'granted') throw new Error(`expected a lease, got ${JSON.stringify(reply)}`);
  return reply;
}

/** A request admitted under `lease` (the gateway's side), as a service settles it. */
function leased(
  lease: Granted,
  usage: SettledUsage | null,
  over: Partial<SettleRequest> & { held?: bigint; id?: string; apiKeyId?: string; worstCase?: BillableUsage } = {},
): SettleRequest {
  const { held = UNIT, id = randomUUID(), apiKeyId = KEY, worstCase = WORST, ...rest } = over;
  return {
    reservationId: id,
    source: 'service',
    outcome: usage === null ? 'failed' : 'completed',
    usage,
    executionMs: 12,
    lease: {
      leaseId: lease.leaseId,
      apiKeyId,
      currency: lease.currency,
      heldNano: held.toString(),
      requestId: `req-${id.slice(0, 8)}`,
      model: MODEL,
      pricing: PRICING,
      worstCase,
    },
    ...rest,
  };
}

async function settleBatch(items: SettleRequest[]): Promise<SettleReply[]> {
  return (await h.rpc.send(BILLING.SETTLE_BATCH, { items })).results;
}

const close = (lease: Granted, admitted: number, admittedNano: bigint) =>
  h.rpc.send(BILLING.LEASE_CLOSE, { leaseId: lease.leaseId, admitted, admittedNano: admittedNano.toString() });

async function leaseRow(id: string) {
  const { rows } = await h.sql.query(
    `SELECT status, currency, granted_nano::text AS granted, held_nano::text AS held, charged_nano::text AS charged, released_nano::text AS released,
            settled_count AS settled, admitted_count AS admitted, key_period AS "keyPeriod"
     FROM leases WHERE id = $1`,
    [id],
  );
  return rows[0];
}

async function accountRow(id: string) {
  const { rows } = await h.sql.query(
    `SELECT balance_usd_nano::text AS balance, held_usd_nano::text AS held, diem_used_nano::text AS "diemUsed", diem_held_nano::text AS "diemHeld" FROM billing_accounts WHERE id = $1`,
    [id],
  );
  return rows[0];
}

async function keyRow(key: string) {
  const { rows } = await h.sql.query(`SELECT used_usd_nano::text AS used, held_usd_nano::text AS held FROM key_usage WHERE api_key_id = $1`, [key]);
  return rows[0];
}

/** Every replica's logger, watched for `level` (each test restores them). */
function watchLogs(level: 'error' | 'warn'): jest.Mock[] {
  return replicas.map((app) => jest.spyOn(app.get<Logger>(BILLING_LOGGER), level) as unknown as jest.Mock);
}
const logged = (spies: jest.Mock[], message: RegExp) => spies.flatMap((s) => s.mock.calls).filter((call) => message.test(String(call[1])));

describe('opening a lease', () => {
  it('grants at most 1/4 of the available balance and at most 1024 units, held like a reservation', async () => {
    const big = newAccount();
    await h.credit(big, '1');
    const lease = await granted(big);
    // 1 USD / 4 would be 250_000_000 nano; 1024 units of 3000 nano is less.
    expect(lease).toMatchObject({ currency: 'USD', grantedNano: (UNIT * 1024n).toString(), balancesBefore: { usd: '1000000000', diem: '0' }, replay: false });
    expect(Date.parse(lease.admitUntil) - Date.now()).toBeLessThanOrEqual(10_000);
    expect(Date.parse(lease.admitUntil)).toBeLessThanOrEqual(Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`) + 86_400_000);
    expect(Date.parse(lease.expiresAt) - Date.now()).toBeGreaterThan(590_000);
    // Held against admission; the balance a client reads does not count an unused block as spent.
    expect(await accountRow(big)).toMatchObject({ balance: '1000000000', held: (UNIT * 1024n).toString() });
    expect(await h.balance(big)).toEqual({ usd: usd(1_000_000_000n), diem: '0.00' });

    const small = newAccount();
    await h.credit(small, '0.0002');
    // 200_000 / 4 = 50_000 nano: 16.67 units, more than the minimum of 16.
    expect(await granted(small)).toMatchObject({ grantedNano: '50000' });
    expect(await accountRow(small)).toEqual({ balance: '200000', held: '50000', diemUsed: '0', diemHeld: '0' });
    expect(await h.reconcile()).toMatchObject({ mismatches: [] });
  });

  it("answers 'exact' below 16 units, holding nothing, and then each request reserves exactly what the balance pays for", async () => {
    const account = newAccount();
    await h.credit(account, '0.00019'); // 190_000 / 4 = 47_500 nano: 15.8 units.
    expect(await openLease(account)).toEqual({ outcome: 'exact' });
    expect(await accountRow(account)).toMatchObject({ held: '0' });
    expect(await h.ledger(account, 5)).toEqual([{ kind: 'CREDIT', amount: '0.00019' }]);
    // 190_000 nano pays for exactly 63 worst cases of 3000.
    const replies = await Promise.allSettled(Array.from({ length: 70 }, () => h.reserve(account, { worstCase: WORST })));
    expect(replies.filter((r) => r.status === 'fulfilled')).toHaveLength(63);
  });

  it("holds at most 1/4 of what is left of a key's limit, in the key's window", async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const key = randomUUID();
    // Spent 3000 already; the limit leaves 200_000 - 3000 = 197_000, a quarter is 49_250.
    const first = await h.reserve(account, { apiKeyId: key, worstCase: WORST });
    await h.settle(first.reservationId, { usage: WORST });
    const keyLimits = { usd: 0.0002, diem: null, period: 'MONTH' as const };
    const lease = await granted(account, { apiKeyId: key, keyLimits });
    expect(lease.grantedNano).toBe('49250');
    expect(await leaseRow(lease.leaseId)).toMatchObject({ keyPeriod: expect.stringMatching(/^M:\d{4}-\d{2}$/), held: '49250' });
    expect(await keyRow(key)).toEqual({ used: '3000', held: '49250' });
    // A key whose limit leaves less than 16 units gets 'exact'.
    // (240_000 - 3000 used - 49_250 held) / 4 = 46_937: under 16 units.
    expect(await openLease(account, { apiKeyId: key, keyLimits: { usd: 0.00024, diem: null, period: 'MONTH' } })).toEqual({ outcome: 'exact' });
  });

  it('keeps the consumption order: a little DIEM left means exact, not a USD lease; no DIEM that pays one unit means USD', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    await h.sql.query(`SELECT billing_set_stake($1, $2, 'test')`, [account, '20000']);
    // DIEM pays one unit (3000 of 20_000) but a quarter is 5000 nano, under 16 units: exact, never USD.
    expect(await openLease(account)).toEqual({ outcome: 'exact' });
    const reserved = await h.rpc.send(BILLING.RESERVE, {
      reservationId: randomUUID(),
      requestId: 'r',
      accountId: account,
      apiKeyId: KEY,
      keyLimits: NO_LIMITS,
      model: MODEL,
      pricing: PRICING,
      worstCase: WORST,
    });
    expect(reserved.currency).toBe('DIEM');
    // 17_000 left: still enough for one unit, still exact.
    expect(await openLease(account)).toEqual({ outcome: 'exact' });
    await h.sql.query(`SELECT billing_set_stake($1, $2, 'test')`, [account, '5000']);
    // 5000 - 3000 held = 2000 DIEM: not one unit. USD pays, as billing_reserve would choose.
    expect(await granted(account)).toMatchObject({ currency: 'USD', grantedNano: (UNIT * 1024n).toString() });

    const staker = newAccount();
    await h.sql.query(`SELECT billing_set_stake($1, $2, 'test')`, [staker, '1000000']);
    expect(await granted(staker)).toMatchObject({ currency: 'DIEM', grantedNano: '250000', balancesBefore: { usd: '0', diem: '1000000' } });
    expect(await accountRow(staker)).toMatchObject({ diemHeld: '250000' });
  });

  it('answers a retried open with its first grant, held once', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const request = {
      leaseId: randomUUID(),
      accountId: account,
      apiKeyId: null,
      keyLimits: NO_LIMITS,
      unitNano: { usd: UNIT.toString(), diem: UNIT.toString() },
    };
    const [a, b] = await Promise.all([h.rpc.send(BILLING.LEASE_OPEN, request), h.rpc.send(BILLING.LEASE_OPEN, request)]);
    expect([a, b].map((r) => r.outcome === 'granted' && r.replay).sort()).toEqual([false, true]);
    expect(a).toMatchObject({ grantedNano: (UNIT * 1024n).toString(), balancesBefore: { usd: '1000000000' } });
    expect(b).toMatchObject({ grantedNano: (UNIT * 1024n).toString(), balancesBefore: { usd: '1000000000' } });
    expect(await accountRow(account)).toMatchObject({ held: (UNIT * 1024n).toString() });
  });

  it("answers 'exact' when BILLING_LEASES is false", async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const config = loadServiceConfig({ BILLING_LEASES: 'false' });
    const service = new LeasesService(replicas[0].get(LeasesRepository), config, replicas[0].get(BILLING_LOGGER));
    expect(
      await service.open({ leaseId: randomUUID(), accountId: account, apiKeyId: null, keyLimits: NO_LIMITS, unitNano: { usd: '3000', diem: '3000' } }),
    ).toEqual({ outcome: 'exact' });
    expect(await accountRow(account)).toMatchObject({ held: '0' });
  });

  it('refuses limits without their key, and a malformed unit', async () => {
    const account = newAccount();
    await expect(openLease(account, { keyLimits: { usd: 1, diem: null, period: 'EPOCH' } })).rejects.toMatchObject({ code: ErrorCode.Validation });
    await expect(openLease(account, { unitNano: { usd: '-1', diem: '0' } })).rejects.toMatchObject({ code: ErrorCode.Validation });
  });
});

describe('settling leased requests in batches', () => {
  it('charges each request exactly from the lease, caps at its own hold (logged), never twice, and answers in order', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const lease = await granted(account);
    const grant = BigInt(lease.grantedNano);
    const errors = watchLogs('error');
    const warnings = watchLogs('warn');
    const exact = leased(lease, text(10, 10));
    const over = leased(lease, text(100, 200)); // 5000 due, 3000 held
    const unknownPrompt = leased(lease, { kind: 'text', promptTokens: null, completionTokens: 7 }); // the reserved prompt: 100 * 10 + 7 * 20
    const released = leased(lease, null, { source: 'gateway' });
    const unknownLease = leased({ ...lease, leaseId: randomUUID() }, text(1, 1));
    const otherCurrency = leased({ ...lease, currency: 'DIEM' }, text(1, 1));

    const replies = await settleBatch([exact, over, { ...exact }, unknownPrompt, released, unknownLease, otherCurrency]);
    expect(replies).toEqual([
      { status: 'settled', currency: 'USD', chargedNano: cost(10, 10).toString() },
      { status: 'settled', currency: 'USD', chargedNano: UNIT.toString() },
      { status: 'already-final', currency: 'USD', chargedNano: cost(10, 10).toString() },
      { status: 'settled', currency: 'USD', chargedNano: cost(100, 7).toString() },
      { status: 'released', currency: 'USD', chargedNano: '0' },
      { status: 'not-found', currency: null, chargedNano: '0' },
      { status: 'not-found', currency: null, chargedNano: '0' },
    ]);
    expect(logged(errors, /settlement exceeded its hold/)).toEqual([
      [expect.objectContaining({ reservationId: over.reservationId, due: '5000', overHold: '2000' }), expect.any(String)],
    ]);
    expect(logged(warnings, /unknown credit lease/)).toHaveLength(2);

    // Replayed in another batch and on its own: nothing more is charged.
    expect(await settleBatch([exact, over])).toEqual([
      { status: 'already-final', currency: 'USD', chargedNano: cost(10, 10).toString() },
      { status: 'already-final', currency: 'USD', chargedNano: UNIT.toString() },
    ]);
    expect(await h.rpc.send(BILLING.SETTLE, exact)).toEqual({ status: 'already-final', currency: 'USD', chargedNano: cost(10, 10).toString() });

    const charged = cost(10, 10) + UNIT + cost(100, 7);
    expect(await accountRow(account)).toEqual({
      balance: (1_000_000_000n - charged).toString(),
      held: (grant - charged).toString(),
      diemUsed: '0',
      diemHeld: '0',
    });
    expect(await leaseRow(lease.leaseId)).toMatchObject({
      status: 'OPEN',
      held: (grant - charged).toString(),
      charged: charged.toString(),
      released: '0',
      settled: 4,
    });
    const { rows: children } = await h.sql.query(
      `SELECT id, status, held_nano::int AS held, charged_nano::int AS charged, uncollected_nano::int AS uncollected, settled_by FROM reservations WHERE lease_id = $1`,
      [lease.leaseId],
    );
    expect(Object.fromEntries(children.map((c) => [c.id, `${c.status} ${c.held}/${c.charged}/${c.uncollected} by ${c.settled_by}`]))).toEqual({
      [exact.reservationId]: 'SETTLED 3000/300/0 by SERVICE',
      [over.reservationId]: 'SETTLED 3000/3000/2000 by SERVICE',
      [unknownPrompt.reservationId]: 'SETTLED 3000/1140/0 by SERVICE',
      [released.reservationId]: 'RELEASED 3000/0/0 by GATEWAY',
    });
    // Usage history lines as for any request: capped so they add up to what was charged.
    const { rows: lines } = await h.sql.query(
      `SELECT reservation_id, sku, quantity::int, amount_nano::int, api_key_id, prompt_tokens, execution_ms FROM usage_entries WHERE reservation_id = ANY($1) ORDER BY id`,
      [[exact.reservationId, over.reservationId]],
    );
    expect(lines).toEqual([
      {
        reservation_id: exact.reservationId,
        sku: 'tiny-llm-input-mtoken',
        quantity: 10,
        amount_nano: 100,
        api_key_id: KEY,
        prompt_tokens: 10,
        execution_ms: 12,
      },
      {
        reservation_id: exact.reservationId,
        sku: 'tiny-llm-output-mtoken',
        quantity: 10,
        amount_nano: 200,
        api_key_id: KEY,
        prompt_tokens: 10,
        execution_ms: 12,
      },
      {
        reservation_id: over.reservationId,
        sku: 'tiny-llm-input-mtoken',
        quantity: 100,
        amount_nano: 1000,
        api_key_id: KEY,
        prompt_tokens: 100,
        execution_ms: 12,
      },
      {
        reservation_id: over.reservationId,
        sku: 'tiny-llm-output-mtoken',
        quantity: 200,
        amount_nano: 2000,
        api_key_id: KEY,
        prompt_tokens: 100,
        execution_ms: 12,
      },
    ]);
    expect(await h.reconcile()).toMatchObject({ mismatches: [] });
  });

  it('never charges what the client did not receive, whether the gateway or the service reports first', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const lease = await granted(account);
    const grant = BigInt(lease.grantedNano);
    // The gateway answered its client with an error; the service's settlement comes later (NATS was down).
    const first = randomUUID();
    expect(await settleBatch([leased(lease, null, { id: first, source: 'gateway' })])).toEqual([{ status: 'released', currency: 'USD', chargedNano: '0' }]);
    expect(await settleBatch([leased(lease, text(20, 20), { id: first })])).toEqual([{ status: 'already-final', currency: 'USD', chargedNano: '0' }]);
    // The service charged first; then the gateway says its client got an error: refunded in full.
    const second = randomUUID();
    expect(await settleBatch([leased(lease, text(20, 20), { id: second })])).toEqual([
      { status: 'settled', currency: 'USD', chargedNano: cost(20, 20).toString() },
    ]);
    expect(await settleBatch([leased(lease, null, { id: second, source: 'gateway' })])).toEqual([{ status: 'refunded', currency: 'USD', chargedNano: '0' }]);
    expect(await settleBatch([leased(lease, null, { id: second, source: 'gateway' }), leased(lease, text(20, 20), { id: second })])).toEqual([
      { status: 'already-final', currency: 'USD', chargedNano: '0' },
      { status: 'already-final', currency: 'USD', chargedNano: '0' },
    ]);
    // The charge came out of the lease's block; the refund went to the balance, and the close returns the rest.
    expect(await accountRow(account)).toMatchObject({ balance: '1000000000', held: (grant - cost(20, 20)).toString() });
    await close(lease, 2, 2n * UNIT);
    expect(await accountRow(account)).toMatchObject({ balance: '1000000000', held: '0' });
    expect(await h.balance(account)).toEqual({ usd: '1.00', diem: '0.00' });
    expect(await h.reconcile()).toMatchObject({ mismatches: [] });
  });

  it('pays DIEM requests from the epoch of the grant', async () => {
    const account = newAccount();
    await h.sql.query(`SELECT billing_set_stake($1, $2, 'test')`, [account, '1000000']);
    const lease = await granted(account);
    expect(lease).toMatchObject({ currency: 'DIEM', grantedNano: '250000' });
    expect(await settleBatch([leased(lease, text(10, 10))])).toEqual([{ status: 'settled', currency: 'DIEM', chargedNano: '300' }]);
    expect(await accountRow(account)).toMatchObject({ diemUsed: '300', diemHeld: String(250_000 - 300) });
    expect(await close(lease, 1, UNIT)).toEqual({ status: 'closed', releasedNano: String(250_000 - 300) });
    expect(await h.balance(account)).toEqual({ usd: '0.00', diem: usd(1_000_000n - 300n) });
    expect(await h.reconcile()).toMatchObject({ mismatches: [] });
  });

  it('settles a single BILLING.SETTLE carrying a lease as a batch of one', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const lease = await granted(account);
    const request = leased(lease, text(3, 4));
    expect(await h.rpc.send(BILLING.SETTLE, request)).toEqual({ status: 'settled', currency: 'USD', chargedNano: cost(3, 4).toString() });
    // Charged 70; the lease holds the rest of its grant.
    expect(await h.balance(account)).toEqual({ usd: usd(1_000_000_000n - cost(3, 4)), diem: '0.00' });
    expect(await accountRow(account)).toMatchObject({
      balance: (1_000_000_000n - cost(3, 4)).toString(),
      held: (BigInt(lease.grantedNano) - cost(3, 4)).toString(),
    });
  });

  it('records a gateway fallback on a held child that the service settles exactly, or the sweeper from the fallback', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const lease = await granted(account);
    const grant = BigInt(lease.grantedNano);
    const cut = { kind: 'text' as const, promptTokens: null, completionTokens: 5 };
    const exactLater = leased(lease, cut, { source: 'gateway', outcome: 'cut' });
    const serviceDied = leased(lease, cut, { source: 'gateway', outcome: 'failed' });
    expect(await settleBatch([exactLater, serviceDied])).toEqual([
      { status: 'fallback-recorded', currency: null, chargedNano: '0' },
      { status: 'fallback-recorded', currency: null, chargedNano: '0' },
    ]);
    expect(await h.heldCount(account)).toBe(2);
    // The lease is done with them: both holds moved to their own reservations.
    expect(await close(lease, 2, 2n * UNIT)).toEqual({ status: 'closed', releasedNano: (grant - 2n * UNIT).toString() });
    expect(await settleBatch([{ ...exactLater, source: 'service', usage: text(100, 4) }])).toEqual([
      { status: 'settled', currency: 'USD', chargedNano: cost(100, 4).toString() },
    ]);
    await sleep(GRACE_MS + 50);
    expect(await h.sweep()).toMatchObject({ settled: 1, released: 0, failed: 0 });
    const { rows } = await h.sql.query('SELECT id, status, settled_by, charged_nano::int AS charged FROM reservations WHERE lease_id = $1', [lease.leaseId]);
    expect(Object.fromEntries(rows.map((r) => [r.id, `${r.status} by ${r.settled_by}: ${r.charged}`]))).toEqual({
      [exactLater.reservationId]: `SETTLED by SERVICE: ${cost(100, 4)}`,
      [serviceDied.reservationId]: `SETTLED by SWEEPER: ${cost(100, 5)}`,
    });
    expect(await accountRow(account)).toMatchObject({ balance: (1_000_000_000n - cost(100, 4) - cost(100, 5)).toString(), held: '0' });
    expect(await h.reconcile()).toMatchObject({ mismatches: [], overdueHolds: 0 });
  });
});

describe('closing a lease', () => {
  it('returns what no running request can need at once, and the rest as the last ones settle', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const lease = await granted(account);
    const grant = BigInt(lease.grantedNano);
    // The gateway admitted three requests of 3000 each; one settles while the lease is open.
    const [a, b, c] = [leased(lease, text(10, 10)), leased(lease, text(20, 20)), leased(lease, text(30, 30))];
    await settleBatch([a]);
    expect(await close(lease, 3, 3n * UNIT)).toEqual({ status: 'closing', releasedNano: (grant - cost(10, 10) - 2n * UNIT).toString() });
    expect(await accountRow(account)).toMatchObject({ held: (2n * UNIT).toString() });
    expect(await close(lease, 3, 3n * UNIT)).toEqual({ status: 'closing', releasedNano: '0' });
    // Each settlement returns its unused part at once; the last one closes the lease.
    await settleBatch([b]);
    expect(await accountRow(account)).toMatchObject({ held: UNIT.toString() });
    expect(await leaseRow(lease.leaseId)).toMatchObject({ status: 'CLOSING' });
    await settleBatch([c]);
    const spent = cost(10, 10) + cost(20, 20) + cost(30, 30);
    expect(await accountRow(account)).toEqual({ balance: (1_000_000_000n - spent).toString(), held: '0', diemUsed: '0', diemHeld: '0' });
    expect(await leaseRow(lease.leaseId)).toMatchObject({
      status: 'CLOSED',
      held: '0',
      charged: spent.toString(),
      released: (grant - spent).toString(),
      settled: 3,
      admitted: 3,
    });
    expect(await close(lease, 3, 3n * UNIT)).toEqual({ status: 'already-closed', releasedNano: '0' });
    expect(await h.rpc.send(BILLING.LEASE_CLOSE, { leaseId: randomUUID(), admitted: 0, admittedNano: '0' })).toEqual({
      status: 'not-found',
      releasedNano: '0',
    });

    // A settlement after the lease closed is late: charged from what the account has, never more than its hold.
    const late = leased(lease, text(10, 10));
    expect(await settleBatch([late])).toEqual([{ status: 'settled', currency: 'USD', chargedNano: cost(10, 10).toString() }]);
    expect(await accountRow(account)).toMatchObject({ balance: (1_000_000_000n - spent - cost(10, 10)).toString(), held: '0' });
    expect(await h.reconcile()).toMatchObject({ mismatches: [], overdueHolds: 0 });
  });

  it('closes at once when every admitted request has settled, and a late one never takes the account below zero', async () => {
    const account = newAccount();
    await h.credit(account, '0.0002');
    const lease = await granted(account); // 50_000 of 200_000
    const requests = Array.from({ length: 16 }, () => leased(lease, WORST));
    await settleBatch(requests);
    expect(await close(lease, 16, 16n * UNIT)).toEqual({ status: 'closed', releasedNano: (50_000n - 16n * UNIT).toString() });
    // Everything else goes to exact reservations, then one more leased settlement arrives late.
    const rest = await h.reserve(account, { worstCase: text(1000, 7100) }); // 10_000 + 142_000: the 152_000 left
    await h.settle(rest.reservationId, { usage: text(1000, 7100) });
    expect(await settleBatch([leased(lease, WORST)])).toEqual([{ status: 'settled', currency: 'USD', chargedNano: '0' }]);
    expect(await accountRow(account)).toMatchObject({ balance: '0', held: '0' });
    const { rows } = await h.sql.query(
      `SELECT count(*)::int AS n, sum(uncollected_nano)::int AS uncollected FROM reservations WHERE lease_id = $1 AND uncollected_nano > 0`,
      [lease.leaseId],
    );
    expect(rows[0]).toEqual({ n: 1, uncollected: Number(UNIT) });
  });
});

describe('crashes and restarts', () => {
  it("returns an expired lease's hold when its gateway died, and charges its requests that settle afterwards", async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const lease = await granted(account);
    const closing = await granted(account);
    await settleBatch([leased(lease, text(10, 10)), leased(closing, text(10, 10))]);
    await close(closing, 3, 3n * UNIT); // two of its requests never settle
    const warnings = watchLogs('warn');
    // Time passes: both leases are past their expiry (the gateway died, settlements were lost).
    await h.sql.query(`UPDATE leases SET expires_at = now() - interval '1 millisecond' * $2 WHERE id = ANY($1)`, [
      [lease.leaseId, closing.leaseId],
      GRACE_MS + 1,
    ]);
    expect(await h.sweep()).toMatchObject({ expiredLeases: 2, failed: 0 });
    expect(await h.sweep()).toMatchObject({ expiredLeases: 0 });
    expect(logged(warnings, /never settled/)).toEqual([[expect.objectContaining({ leaseId: closing.leaseId, unsettled: 2 }), expect.any(String)]]);
    expect(logged(warnings, /without being closed/)).toEqual([
      [expect.objectContaining({ leaseId: lease.leaseId, admitted: null, settled: 1 }), expect.any(String)],
    ]);
    expect(await accountRow(account)).toMatchObject({ balance: (1_000_000_000n - 2n * cost(10, 10)).toString(), held: '0' });
    expect(await leaseRow(lease.leaseId)).toMatchObject({ status: 'CLOSED', held: '0' });
    expect(await settleBatch([leased(closing, text(10, 10))])).toEqual([{ status: 'settled', currency: 'USD', chargedNano: cost(10, 10).toString() }]);
    expect(await accountRow(account)).toMatchObject({ balance: (1_000_000_000n - 3n * cost(10, 10)).toString(), held: '0' });
    expect(await h.reconcile()).toMatchObject({ mismatches: [], overdueHolds: 0 });
  });

  it('counts a lease its sweeper missed as an overdue hold', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const lease = await granted(account);
    await h.sql.query(`UPDATE leases SET expires_at = now() - interval '2 minutes' WHERE id = $1`, [lease.leaseId]);
    expect(await h.reconcile()).toMatchObject({ overdueHolds: 1 });
    await h.sweep();
    expect(await h.reconcile()).toMatchObject({ mismatches: [], overdueHolds: 0 });
  });

  it('changes nothing when a billing replica restarts between opening a lease and settling under it', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const lease = await granted(account);
    const [first] = replicas;
    await h.stopApp(first);
    replicas = [replicas[1], await h.start()];
    const request = leased(lease, text(12, 34));
    expect(await settleBatch([request])).toEqual([{ status: 'settled', currency: 'USD', chargedNano: cost(12, 34).toString() }]);
    expect(await close(lease, 1, UNIT)).toEqual({ status: 'closed', releasedNano: (BigInt(lease.grantedNano) - cost(12, 34)).toString() });
    expect(await h.balance(account)).toEqual({ usd: usd(1_000_000_000n - cost(12, 34)), diem: '0.00' });
  });
});

describe('leases and reservations racing', () => {
  const C = cost(30, 70);
  const WORST_C = text(30, 70);
  const N = 200;

  /** What a gateway does with a lease: admits whole worst cases, settles each at its worst case, closes. */
  async function useLease(lease: Granted, apiKeyId: string): Promise<number> {
    const count = Number(BigInt(lease.grantedNano) / C);
    const requests = Array.from({ length: count }, () => leased(lease, WORST_C, { held: C, apiKeyId, worstCase: WORST_C }));
    const [firstHalf, secondHalf] = [requests.slice(0, count >> 1), requests.slice(count >> 1)];
    await settleBatch(firstHalf);
    const closing = close(lease, count, BigInt(count) * C);
    await settleBatch(secondHalf);
    await closing;
    return count;
  }

  async function race(accountId: string, apiKeyId: string, keyLimits: LeaseOpenRequest['keyLimits']) {
    const unitNano = { usd: C.toString(), diem: C.toString() };
    const opens = Array.from({ length: 12 }, () => openLease(accountId, { apiKeyId, keyLimits, unitNano }));
    const reserves = Array.from({ length: 300 }, () =>
      h.rpc.send(BILLING.RESERVE, {
        reservationId: randomUUID(),
        requestId: 'race',
        accountId,
        apiKeyId,
        keyLimits,
        model: MODEL,
        pricing: PRICING,
        worstCase: WORST_C,
      }),
    );
    const [leases, reserved] = await Promise.all([Promise.allSettled(opens), Promise.allSettled(reserves)]);
    // Nothing failed but for want of credit: a hold beyond the balance would have broken a CHECK (an internal error).
    expect(leases.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(reserved.filter((r) => r.status === 'rejected').every((r) => (r.reason as { code: string }).code === ErrorCode.InsufficientCredits)).toBe(true);
    const grants = leases.map((r) => (r as PromiseFulfilledResult<LeaseOpenReply>).value).filter((r): r is Granted => r.outcome === 'granted');
    const holds = reserved.filter((r): r is PromiseFulfilledResult<ReserveReply> => r.status === 'fulfilled').map((r) => r.value);
    expect(grants.length).toBeGreaterThanOrEqual(2);
    expect(holds.length).toBeGreaterThan(0);
    const heldTotal = grants.reduce((n, g) => n + BigInt(g.grantedNano), 0n) + BigInt(holds.length) * C;
    expect(heldTotal).toBeLessThanOrEqual(BigInt(N) * C);
    const admitted = (await Promise.all(grants.map((g) => useLease(g, apiKeyId)))).reduce((n, c) => n + c, 0) + holds.length;
    await Promise.all(holds.map((r) => h.settle(r.reservationId, { usage: WORST_C })));
    return { grants, admitted };
  }

  it(`never holds more than the balance, and charges exactly what was admitted (${N} worst cases of credit)`, async () => {
    const account = newAccount();
    await h.credit(account, usd(BigInt(N) * C));
    const { grants, admitted } = await race(account, KEY, NO_LIMITS);
    expect(admitted).toBeLessThanOrEqual(N);
    expect(await accountRow(account)).toEqual({ balance: ((BigInt(N) - BigInt(admitted)) * C).toString(), held: '0', diemUsed: '0', diemHeld: '0' });
    for (const g of grants) expect(await leaseRow(g.leaseId)).toMatchObject({ status: 'CLOSED', held: '0' });
    expect(await h.reconcile()).toMatchObject({ mismatches: [], overdueHolds: 0 });
  });

  it(`never lets a key past its limit (${N} worst cases), leases and reservations together`, async () => {
    const account = newAccount();
    await h.credit(account, '10');
    const key = randomUUID();
    const limit = Number(usd(BigInt(N) * C));
    const { admitted } = await race(account, key, { usd: limit, diem: null, period: 'EPOCH' });
    expect(admitted).toBeLessThanOrEqual(N);
    expect(await keyRow(key)).toEqual({ used: (BigInt(admitted) * C).toString(), held: '0' });
    expect(await accountRow(account)).toMatchObject({ balance: (10_000_000_000n - BigInt(admitted) * C).toString(), held: '0' });
    const { usage } = await h.rpc.send(BILLING.KEY_USAGE, { accountId: account, keys: [{ id: key, limitPeriod: 'EPOCH' }] });
    expect(usage[key].currentPeriod.usd).toBe((BigInt(admitted) * C).toString());
    expect(await h.reconcile()).toMatchObject({ mismatches: [], overdueHolds: 0 });
  });

  it('settles batches spanning several accounts concurrently without deadlocks', async () => {
    const accounts = Array.from({ length: 4 }, () => newAccount());
    for (const a of accounts) await h.credit(a, '1');
    const leases = await Promise.all(accounts.map((a) => granted(a)));
    const batches = Array.from({ length: 24 }, (_, i) => {
      const order = i % 2 === 0 ? leases : [...leases].reverse();
      return order.flatMap((l) => Array.from({ length: 5 }, () => leased(l, text(1, 1))));
    });
    const replies = await Promise.all(batches.map((b) => settleBatch(b)));
    expect(replies.flat().every((r) => r.status === 'settled')).toBe(true);
    for (const a of accounts) expect(await accountRow(a)).toMatchObject({ balance: (1_000_000_000n - 24n * 5n * cost(1, 1)).toString() });
    expect(await h.reconcile()).toMatchObject({ mismatches: [] });
  });
});

// Last: it fakes a midnight by moving the account's epoch back, which the append-only ledger cannot
// follow, so `reconcile` sees this account differ from then on.
describe('a DIEM lease across midnight', () => {
  it('pays the requests of a lease of a past epoch from its own hold only: the new epoch starts full', async () => {
    const account = newAccount();
    await h.sql.query(`SELECT billing_set_stake($1, $2, 'test')`, [account, '1000000']);
    const lease = await granted(account);
    await settleBatch([leased(lease, text(10, 10))]);
    // Midnight passes: the account's counters and the lease's grant belong to yesterday.
    await h.sql.query(`UPDATE billing_accounts SET diem_epoch = diem_epoch - 1 WHERE id = $1`, [account]);
    await h.sql.query(`UPDATE leases SET epoch = epoch - 1 WHERE id = $1`, [lease.leaseId]);
    expect(await settleBatch([leased(lease, text(20, 20))])).toEqual([{ status: 'settled', currency: 'DIEM', chargedNano: '600' }]);
    expect(await close(lease, 2, 2n * UNIT)).toEqual({ status: 'closed', releasedNano: String(250_000 - 900) });
    expect(await accountRow(account)).toMatchObject({ diemUsed: '0', diemHeld: '0' });
    expect(await h.balance(account)).toEqual({ usd: '0.00', diem: usd(1_000_000n) });
    expect(await leaseRow(lease.leaseId)).toMatchObject({ status: 'CLOSED', charged: '900', held: '0' });
    // Requests of yesterday's lease that settle after it closed have nothing left to pay from.
    expect(await settleBatch([leased(lease, text(1, 1))])).toEqual([{ status: 'settled', currency: 'DIEM', chargedNano: '0' }]);
    expect(await h.balance(account)).toEqual({ usd: '0.00', diem: usd(1_000_000n) });
  });
});
