import { randomUUID } from 'node:crypto';
import { BILLING, UsageHistoryEntry } from '@svc/contracts';
import { ErrorCode } from '@svc/errors';
import { USAGE_TOTAL_BOUND } from '../../src/usage/usage.service';
import { BillingHarness, cost, createBillingHarness, newAccount, text } from './support/billing-harness';

let h: BillingHarness;
const account = newAccount();
const K1 = randomUUID();
const K2 = randomUUID();
const BIG = { input: { usd: 1, diem: 1 }, output: { usd: 3, diem: 3 } };

beforeAll(async () => {
  h = await createBillingHarness('billing_usage');
  await h.start();
  await h.credit(account, '10');
  for (let i = 0; i < 10; i++) {
    const r = await h.reserve(account, { apiKeyId: i % 2 ? K2 : K1, worstCase: text(100, 100) });
    await h.settle(r.reservationId, { usage: text(10 + i, 20), executionMs: 5 });
  }
  for (let i = 0; i < 3; i++) {
    const r = await h.reserve(account, { apiKeyId: K1, model: { id: 'big', name: 'Big Model', type: 'text' }, pricing: BIG, worstCase: text(100, 100) });
    await h.settle(r.reservationId, { usage: text(50, 50) });
  }
});
afterAll(() => h?.stop());

const history = (request: Record<string, unknown>) => h.rpc.send(BILLING.USAGE_HISTORY, { accountId: account, ...request });

describe('usage history', () => {
  it('walks every priced line in ascending order, page by page, with a cursor carrying the filters', async () => {
    const pages: UsageHistoryEntry[][] = [];
    let reply = await history({ pageSize: 10 });
    expect(reply.page).toBe(1);
    expect(reply.total).toBe(26);
    pages.push(reply.data);
    // Usage recorded during the walk does not shift it: the first page fixed its end.
    const late = await h.reserve(account, { worstCase: text(100, 100) });
    await h.settle(late.reservationId, { usage: text(1, 1) });
    while (reply.nextCursor) {
      reply = await history({ cursor: reply.nextCursor });
      // The walk's total, counted at its first page, stays while usage is recorded.
      expect(reply.total).toBe(26);
      pages.push(reply.data);
    }
    expect(pages.map((p) => p.length)).toEqual([10, 10, 6]);
    expect(reply.page).toBe(3);
    const rows = pages.flat();
    expect(rows.map((r) => r.timestamp)).toEqual([...rows.map((r) => r.timestamp)].sort());
    expect(rows[0]).toEqual({
      amount: -0.0000001,
      currency: 'USD',
      inferenceDetails: { completionTokens: 20, inferenceExecutionTime: 5, promptTokens: 10, requestId: expect.any(String) },
      notes: 'API Inference',
      pricePerUnitUsd: 0.01,
      sku: 'tiny-llm-input-mtoken',
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      units: 0.00001,
    });
    const totalNano = rows.reduce((n, r) => n + BigInt(Math.round(-r.amount * 1e9)), 0n);
    let expected = 0n;
    for (let i = 0; i < 10; i++) expected += cost(10 + i, 20);
    expected += 3n * (50n * 1000n + 50n * 3000n);
    expect(totalNano).toBe(expected);
  });

  it('refuses filters next to a cursor, and cursors that were tampered with, with 400', async () => {
    const { nextCursor } = await history({ pageSize: 10 });
    await expect(history({ cursor: nextCursor, pageSize: 20 })).rejects.toMatchObject({
      code: ErrorCode.Validation,
      details: { cursor: { _errors: [expect.stringMatching(/alone/)] } },
    });
    const tampered = `${nextCursor!.slice(0, 10)}${nextCursor![10] === 'A' ? 'B' : 'A'}${nextCursor!.slice(11)}`;
    await expect(history({ cursor: tampered })).rejects.toMatchObject({ code: ErrorCode.Validation, message: expect.stringMatching(/Invalid cursor/) });
    await expect(h.rpc.send(BILLING.USAGE_HISTORY, { accountId: newAccount(), cursor: nextCursor! })).rejects.toMatchObject({
      message: expect.stringMatching(/another account/),
    });
    await expect(history({ pageSize: 5 })).rejects.toMatchObject({ code: ErrorCode.Validation });
  });

  it('filters by currency and time window', async () => {
    expect(await history({ currency: 'DIEM' })).toMatchObject({ data: [], total: 0 });
    expect(await history({ startTimestamp: '2000-01-01T00:00:00Z', endTimestamp: '2000-01-02T00:00:00Z' })).toMatchObject({ data: [], total: 0 });
    expect((await history({ endTimestamp: new Date(Date.now() + 60_000).toISOString() })).data.length).toBe(28);
  });
});

describe('usage history totals past their bound', () => {
  it('are left out (null) rather than counted: a range with more entries than the bound', async () => {
    const crowded = newAccount();
    // USAGE_TOTAL_BOUND + 1 entries, written in one statement (as settlement would, row by row).
    await h.sql.query(
      `INSERT INTO usage_entries (account_id, reservation_id, request_id, model_id, model_name, model_type, line_type, sku, unit_type,
                                  quantity, per_sku_unit, unit_price_usd_nano, currency, amount_nano, created_at)
       SELECT $1, gen_random_uuid(), 'bulk-' || g, 'tiny', 'Tiny', 'text', 'input', 'tiny-llm-input-mtoken', 'tokens',
              1, 1000000, 10000000, 'USD', 1, now() - interval '1 hour'
       FROM generate_series(1, $2::int) AS g`,
      [crowded, USAGE_TOTAL_BOUND + 1],
    );
    const started = Date.now();
    const reply = await h.rpc.send(BILLING.USAGE_HISTORY, { accountId: crowded, pageSize: 10 });
    const ms = Date.now() - started;
    expect(reply.total).toBeNull();
    expect(reply.data).toHaveLength(10);
    expect(ms).toBeLessThan(2_000);
  });
});

describe('usage analytics', () => {
  it('totals by date, model (with input/output breakdown) and key, highest spend first', async () => {
    const a = await h.rpc.send(BILLING.USAGE_ANALYTICS, { accountId: account, lookbackDays: 7 });
    expect(a.lookback).toBe('7d');
    expect(a.byDate).toHaveLength(7);
    expect(a.byDate[0].USD).toBe(0.00060548);
    expect(a.byDate.slice(1).every((d) => d.USD === 0 && d.DIEM === 0)).toBe(true);
    expect(a.topModels).toEqual(['Big Model', 'Tiny']);
    expect(a.byModel[0]).toEqual({
      modelName: 'Big Model',
      unitType: 'tokens',
      modelType: 'LLM',
      totalUsd: 0.0006,
      totalDiem: 0,
      totalUnits: 300,
      breakdown: [
        { type: 'Output', usd: 0.00045, diem: 0, units: 150 },
        { type: 'Input', usd: 0.00015, diem: 0, units: 150 },
      ],
    });
    expect(a.byKey.map((k) => k.apiKeyId)).toEqual([K1, K2, expect.any(String)]);
    expect(a.topKeyIds[0]).toBe(K1);
    expect(a.byModelDaily[0]).toEqual({ date: Date.parse(`${a.byDate[0].date}T00:00:00Z`), 'Big Model': 0.0006, Tiny: expect.any(Number) });
  });

  it('validates the window', async () => {
    await expect(h.rpc.send(BILLING.USAGE_ANALYTICS, { accountId: account, startDate: '2026-01-01' })).rejects.toMatchObject({ code: ErrorCode.Validation });
    await expect(h.rpc.send(BILLING.USAGE_ANALYTICS, { accountId: account, lookbackDays: 91 })).rejects.toMatchObject({ code: ErrorCode.Validation });
    const range = await h.rpc.send(BILLING.USAGE_ANALYTICS, { accountId: account, startDate: '2026-01-01', endDate: '2026-01-03' });
    expect(range.lookback).toBe('2026-01-01:2026-01-03');
    expect(range.byDate.map((d) => d.date)).toEqual(['2026-01-03', '2026-01-02', '2026-01-01']);
  });
});

describe('key usage', () => {
  it('reports each key’s usage in its current limit window and the trailing 7 days', async () => {
    const { usage } = await h.rpc.send(BILLING.KEY_USAGE, {
      accountId: account,
      keys: [
        { id: K1, limitPeriod: 'MONTH' },
        { id: K2, limitPeriod: 'LIFETIME' },
        { id: randomUUID(), limitPeriod: 'EPOCH' },
      ],
    });
    let k1 = 3n * (50n * 1000n + 50n * 3000n);
    for (let i = 0; i < 10; i += 2) k1 += cost(10 + i, 20);
    expect(usage[K1]).toEqual({ currentPeriod: { usd: k1.toString(), diem: '0' }, trailingSevenDays: { usd: k1.toString(), diem: '0' } });
    expect(Object.values(usage)[2]).toEqual({ currentPeriod: { usd: '0', diem: '0' }, trailingSevenDays: { usd: '0', diem: '0' } });
  });
});
