import { randomUUID } from 'node:crypto';
import { BILLING } from '@svc/contracts';
import { ErrorCode } from '@svc/errors';
import { BillingHarness, cost, createBillingHarness, newAccount, text, usd } from './support/billing-harness';

let h: BillingHarness;

beforeAll(async () => {
  h = await createBillingHarness('billing_settle');
  await h.start();
});
afterAll(() => h?.stop(), 60_000);

describe('reservations and settlement', () => {
  it('ends at the exact balance after mixed streaming and non-streaming requests, cut streams billed for what was sent', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const start = 1_000_000_000n;

    // Non-streaming: the chat service settles with the engine's exact counts before replying.
    const plain = await h.reserve(account, { worstCase: text(40, 512) });
    await h.settle(plain.reservationId, { usage: text(13, 8) });

    // Streaming to the end: the service settles before its end frame; the gateway adds nothing.
    const streamed = await h.reserve(account, { worstCase: text(40, 512) });
    await h.settle(streamed.reservationId, { usage: text(9, 30) });

    // Client cut mid-stream: the gateway reports what it relayed (a fallback), the service then
    // settles exactly what it generated up to the cut, which replaces the fallback.
    const cut = await h.reserve(account, { worstCase: text(40, 512) });
    expect(
      await h.settle(cut.reservationId, { source: 'gateway', outcome: 'cut', usage: { kind: 'text', promptTokens: null, completionTokens: 3 } }),
    ).toMatchObject({ status: 'fallback-recorded' });
    expect(await h.settle(cut.reservationId, { outcome: 'cut', usage: text(11, 4) })).toMatchObject({ status: 'settled', chargedNano: cost(11, 4).toString() });

    // Cut before the engine reported the prompt count: the prompt is billed at the reserved count.
    const unknownPrompt = await h.reserve(account, { worstCase: text(25, 512) });
    await h.settle(unknownPrompt.reservationId, { outcome: 'cut', usage: { kind: 'text', promptTokens: null, completionTokens: 2 } });

    // Never reached a service (none running, or it refused): the gateway releases at once.
    const unreached = await h.reserve(account, { worstCase: text(40, 512) });
    expect(await h.settle(unreached.reservationId, { source: 'gateway', outcome: 'failed', usage: null })).toMatchObject({
      status: 'released',
      chargedNano: '0',
    });

    // The engine failed before producing anything: the service releases.
    const failed = await h.reserve(account, { worstCase: text(40, 512) });
    expect(await h.settle(failed.reservationId, { outcome: 'failed', usage: null })).toMatchObject({ status: 'released' });

    const spent = cost(13, 8) + cost(9, 30) + cost(11, 4) + cost(25, 2);
    expect(await h.balance(account)).toEqual({ usd: usd(start - spent), diem: '0.00' });
    expect(await h.heldCount(account)).toBe(0);
    expect(await h.reconcile()).toMatchObject({ mismatches: [], overdueHolds: 0 });

    const { rows } = await h.sql.query(`SELECT sku, quantity::int, amount_nano::int FROM usage_entries WHERE reservation_id = $1 ORDER BY id`, [
      cut.reservationId,
    ]);
    expect(rows).toEqual([
      { sku: 'tiny-llm-input-mtoken', quantity: 11, amount_nano: 110 },
      { sku: 'tiny-llm-output-mtoken', quantity: 4, amount_nano: 80 },
    ]);
  });

  it('never charges a settlement twice, however often and from wherever it is replayed', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const r = await h.reserve(account, { worstCase: text(40, 100) });
    const replies = await Promise.all(Array.from({ length: 10 }, () => h.settle(r.reservationId, { usage: text(10, 10) })));
    expect(replies.filter((x) => x.status === 'settled')).toHaveLength(1);
    expect(replies.filter((x) => x.status === 'already-final')).toHaveLength(9);
    for (const reply of replies) expect(reply.chargedNano).toBe(cost(10, 10).toString());
    await h.settle(r.reservationId, { usage: text(20, 20) });
    await h.settle(r.reservationId, { source: 'gateway', outcome: 'cut', usage: text(30, 30) });
    // (The gateway reporting `failed` afterwards is a refund, not a replay: see "never charges what the client did not receive".)
    expect(await h.balance(account)).toEqual({ usd: usd(1_000_000_000n - cost(10, 10)), diem: '0.00' });
    const { rows } = await h.sql.query(`SELECT kind, count(*)::int AS n FROM ledger_entries WHERE reservation_id = $1 GROUP BY kind ORDER BY kind`, [
      r.reservationId,
    ]);
    expect(rows).toEqual([
      { kind: 'HOLD', n: 1 },
      { kind: 'RELEASE', n: 1 },
      { kind: 'CHARGE', n: 1 },
    ]);
  });

  it('keeps an append-only ledger the operator reads newest first', async () => {
    const account = newAccount();
    for (let i = 1; i <= 12; i++) await h.credit(account, String(i));
    const r = await h.reserve(account, { worstCase: text(1, 1) });
    await h.settle(r.reservationId, { usage: text(1, 1) });
    expect(await h.ledger(account, 5)).toEqual([
      { kind: 'CHARGE', amount: '-0.00000003' },
      { kind: 'RELEASE', amount: '-0.00000003' },
      { kind: 'HOLD', amount: '0.00000003' },
      { kind: 'CREDIT', amount: '12.00' },
      { kind: 'CREDIT', amount: '11.00' },
    ]);
    await expect(h.sql.query('UPDATE ledger_entries SET amount_nano = 0 WHERE account_id = $1', [account])).rejects.toThrow(/append-only/);
    await expect(h.sql.query('DELETE FROM ledger_entries WHERE account_id = $1', [account])).rejects.toThrow(/append-only/);
  });

  it('answers a retried reservation with its first hold, held once', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const first = await h.reserve(account, { worstCase: text(40, 100) });
    const again = await h.rpc.send(BILLING.RESERVE, first);
    expect(again).toMatchObject({ reservationId: first.reservationId, replay: true, heldNano: cost(40, 100).toString() });
    expect(await h.balance(account)).toEqual({ usd: usd(1_000_000_000n - cost(40, 100)), diem: '0.00' });
  });

  it('refuses with a clear 402 before anything is held when the balance cannot cover the worst case', async () => {
    const account = newAccount();
    await h.credit(account, '0.000001');
    const err = await h.reserve(account, { worstCase: text(100, 100) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.InsufficientCredits, status: 402 });
    expect((err as Error).message).toBe(
      'Insufficient balance: this request may cost up to 0.000003 USD, and the account has 0.000001 USD available. Add credits, or send a smaller max_tokens.',
    );
    expect(await h.heldCount(account)).toBe(0);
    await expect(h.reserve(account, { worstCase: text(50, 25) })).resolves.toBeDefined();
  });

  it('charges a settlement that arrives after the sweeper released its hold from what is left, never below zero', async () => {
    const account = newAccount();
    await h.credit(account, '0.000005');
    const r = await h.reserve(account, { worstCase: text(100, 100), ttlMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await h.sweep()).toMatchObject({ released: 1 });
    const spender = await h.reserve(account, { worstCase: text(100, 100) });
    await h.settle(spender.reservationId, { usage: text(100, 100) });
    // 5000 - 3000 = 2000 nano left; the late settlement is due 3000.
    expect(await h.settle(r.reservationId, { usage: text(100, 100) })).toMatchObject({ status: 'settled', chargedNano: '2000' });
    expect(await h.balance(account)).toEqual({ usd: '0.00', diem: '0.00' });
    const { rows } = await h.sql.query('SELECT uncollected_nano::int AS n FROM reservations WHERE id = $1', [r.reservationId]);
    expect(rows[0].n).toBe(1000);
    expect(await h.reconcile()).toMatchObject({ mismatches: [] });
  });

  it('never charges what the client did not receive, whether the gateway or the service reports first', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    // The gateway answered its client with an error; the service's settlement comes later (NATS was down).
    const first = await h.reserve(account);
    expect(await h.settle(first.reservationId, { source: 'gateway', outcome: 'failed', usage: null })).toMatchObject({ status: 'released' });
    expect(await h.settle(first.reservationId, { usage: text(10, 10) })).toMatchObject({ status: 'already-final', chargedNano: '0' });
    // The service charged first; then the gateway says its client got an error: refunded in full.
    const second = await h.reserve(account);
    expect(await h.settle(second.reservationId, { usage: text(10, 10) })).toMatchObject({ status: 'settled', chargedNano: cost(10, 10).toString() });
    expect(await h.balance(account)).toEqual({ usd: usd(1_000_000_000n - cost(10, 10)), diem: '0.00' });
    expect(await h.settle(second.reservationId, { source: 'gateway', outcome: 'failed', usage: null })).toMatchObject({ status: 'refunded', chargedNano: '0' });
    // Replays from either side change nothing.
    expect(await h.settle(second.reservationId, { source: 'gateway', outcome: 'failed', usage: null })).toMatchObject({ status: 'already-final' });
    expect(await h.settle(second.reservationId, { usage: text(10, 10) })).toMatchObject({ status: 'already-final', chargedNano: '0' });
    expect(await h.balance(account)).toEqual({ usd: '1.00', diem: '0.00' });
    expect((await h.ledger(account, 2)).map((e) => e.kind)).toEqual(['REFUND', 'CHARGE']);
    const { rows } = await h.sql.query(
      'SELECT r.status, r.outcome, r.settled_by, coalesce(sum(u.amount_nano), 0)::int AS billed FROM reservations r LEFT JOIN usage_entries u ON u.reservation_id = r.id WHERE r.id = $1 GROUP BY r.id',
      [second.reservationId],
    );
    expect(rows[0]).toEqual({ status: 'RELEASED', outcome: 'undelivered', settled_by: 'GATEWAY', billed: 0 });
    expect(await h.reconcile()).toMatchObject({ mismatches: [] });
  });

  it('counts what a key spent before it got a limit against that limit', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    const key = randomUUID();
    const before = await h.reserve(account, { apiKeyId: key, worstCase: text(100, 100) });
    await h.settle(before.reservationId, { usage: text(100, 100) });
    // 3000 nano spent; a limit of 5000 per month leaves room for one more request of 2000, not 3000.
    const keyLimits = { usd: 0.000005, diem: null, period: 'MONTH' as const };
    await expect(h.reserve(account, { apiKeyId: key, keyLimits, worstCase: text(100, 100) })).rejects.toMatchObject({
      code: ErrorCode.InsufficientCredits,
      message: expect.stringMatching(/0.000003 USD is used or reserved/),
    });
    const fits = await h.reserve(account, { apiKeyId: key, keyLimits, worstCase: text(0, 100) });
    await h.settle(fits.reservationId, { usage: text(0, 50) });
    const { usage } = await h.rpc.send(BILLING.KEY_USAGE, { accountId: account, keys: [{ id: key, limitPeriod: 'MONTH' }] });
    expect(usage[key]).toEqual({ currentPeriod: { usd: '4000', diem: '0' }, trailingSevenDays: { usd: '4000', diem: '0' } });
  });

  it('draws DIEM first, then USD, and honours the configured order', async () => {
    const account = newAccount();
    await h.credit(account, '1');
    await h.sql.query(`SELECT billing_set_stake($1, $2, 'test')`, [account, '3000']);
    const first = await h.rpc.send(BILLING.RESERVE, { ...(await requestFor(account)), worstCase: text(100, 100) });
    expect(first).toMatchObject({ currency: 'DIEM', balancesBefore: { usd: '1000000000', diem: '3000' } });
    const second = await h.rpc.send(BILLING.RESERVE, { ...(await requestFor(account)), worstCase: text(100, 100) });
    expect(second.currency).toBe('USD');
    await h.settle(first.reservationId, { usage: text(50, 50) });
    expect(await h.balance(account)).toEqual({ usd: usd(1_000_000_000n - 3000n), diem: usd(1500n) });
    await h.sql.query(`UPDATE billing_accounts SET consumption_order = 'USD_FIRST' WHERE id = $1`, [account]);
    expect((await h.rpc.send(BILLING.RESERVE, { ...(await requestFor(account)), worstCase: text(1, 1) })).currency).toBe('USD');
  });

  it('gives DIEM stakers a fresh allocation every epoch', async () => {
    const account = newAccount();
    await h.sql.query(`SELECT billing_set_stake($1, $2, 'test')`, [account, '5000']);
    await h.sql.query(`UPDATE billing_accounts SET diem_epoch = diem_epoch - 1, diem_used_nano = 5000 WHERE id = $1`, [account]);
    expect(await h.balance(account)).toEqual({ usd: '0.00', diem: usd(5000n) });
    const r = await h.reserve(account, { worstCase: text(100, 100) });
    await h.settle(r.reservationId, { usage: text(100, 100) });
    expect(await h.balance(account)).toEqual({ usd: '0.00', diem: usd(2000n) });
  });
});

async function requestFor(accountId: string) {
  return {
    reservationId: randomUUID(),
    requestId: 'req',
    accountId,
    apiKeyId: '99999999-9999-4999-8999-999999999999',
    keyLimits: { usd: null, diem: null, period: 'EPOCH' as const },
    model: { id: 'tiny', name: 'Tiny', type: 'text' },
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } },
    worstCase: text(1, 1),
  };
}
