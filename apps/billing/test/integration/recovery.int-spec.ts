import { INestMicroservice } from '@nestjs/common';
import { BILLING } from '@svc/contracts';
import { ReservationSweeper } from '../../src/sweeper/reservation.sweeper';
import { BillingHarness, cost, createBillingHarness, newAccount, text, usd } from './support/billing-harness';

let h: BillingHarness;
let replicas: INestMicroservice[];
const GRACE_MS = 150;

beforeAll(async () => {
  h = await createBillingHarness('billing_recovery', { BILLING_SETTLE_GRACE_MS: String(GRACE_MS) });
  replicas = await Promise.all([h.start(), h.start()]);
});
afterAll(() => h?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('crashes and restarts', () => {
  it('leaves no lost or stuck credit when the chat service dies mid-request', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    // Non-streaming request whose service died: nobody settles, the gateway timed out and died too.
    const silent = await h.reserve(account, { worstCase: text(40, 512), ttlMs: 100 });
    // Stream whose service died after 5 chunks: the gateway reported what it relayed, no exact settlement follows.
    const broken = await h.reserve(account, { worstCase: text(40, 512) });
    await h.settle(broken.reservationId, { source: 'gateway', outcome: 'failed', usage: { kind: 'text', promptTokens: null, completionTokens: 5 } });
    expect(await h.heldCount(account)).toBe(2);

    await sleep(Math.max(100, GRACE_MS) + 50);
    const swept = await h.sweep();
    expect(swept).toMatchObject({ released: 1, settled: 1, failed: 0 });

    expect(await h.heldCount(account)).toBe(0);
    expect(await h.balance(account)).toEqual({ usd: usd(1_000_000_000n - cost(40, 5)), diem: '0.00' });
    const { rows } = await h.sql.query('SELECT id, status, settled_by FROM reservations WHERE id = ANY($1)', [[silent.reservationId, broken.reservationId]]);
    expect(Object.fromEntries(rows.map((r) => [r.id, `${r.status} by ${r.settled_by}`]))).toEqual({
      [silent.reservationId]: 'RELEASED by SWEEPER',
      [broken.reservationId]: 'SETTLED by SWEEPER',
    });
    // A settlement that shows up after all (the service came back) is not charged again.
    expect(await h.settle(broken.reservationId, { usage: text(40, 5) })).toMatchObject({ status: 'already-final' });
    expect(await h.reconcile()).toMatchObject({ mismatches: [], overdueHolds: 0 });
  });

  it('finalizes every expired hold exactly once while two replicas sweep at the same time', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const reserved = await Promise.all(Array.from({ length: 60 }, () => h.reserve(account, { worstCase: text(10, 10), ttlMs: 50 })));
    await sleep(80);
    const results = await Promise.all(replicas.map((app) => app.get(ReservationSweeper).sweep()));
    expect(results.reduce((n, r) => n + r.released, 0)).toBe(60);
    const { rows } = await h.sql.query(
      `SELECT count(*)::int AS n FROM ledger_entries WHERE kind = 'RELEASE' AND reservation_id = ANY($1) GROUP BY reservation_id HAVING count(*) <> 1`,
      [reserved.map((r) => r.reservationId)],
    );
    expect(rows).toEqual([]);
    expect(await h.balance(account)).toEqual({ usd: '1.00', diem: '0.00' });
  });

  it('loses nothing when a billing replica stops between reservation and settlement', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const r = await h.reserve(account, { worstCase: text(40, 100) });
    const [first] = replicas;
    await h.stopApp(first);
    replicas = [replicas[1], await h.start()];
    expect(await h.settle(r.reservationId, { usage: text(12, 34) })).toMatchObject({ status: 'settled', chargedNano: cost(12, 34).toString() });
    expect(await h.balance(account)).toEqual({ usd: usd(1_000_000_000n - cost(12, 34)), diem: '0.00' });
  });

  it('credits the bootstrap account once, whatever the replicas and restarts', async () => {
    const account = newAccount();
    const replies = await Promise.all(Array.from({ length: 5 }, () => h.rpc.send(BILLING.BOOTSTRAP_CREDIT, { accountId: account })));
    expect(replies.filter((r) => r.credited)).toHaveLength(1);
    expect(replies[0].amountNano).toBe('100000000000');
    expect((await h.rpc.send(BILLING.BOOTSTRAP_CREDIT, { accountId: account })).credited).toBe(false);
    expect(await h.balance(account)).toEqual({ usd: '100.00', diem: '0.00' });
  });
});
