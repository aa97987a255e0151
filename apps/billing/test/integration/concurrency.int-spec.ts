import { randomUUID } from 'node:crypto';
import { BILLING, ReserveReply } from '@svc/contracts';
import { ErrorCode } from '@svc/errors';
import { BillingHarness, cost, createBillingHarness, KEY, newAccount, PRICING, text, usd } from './support/billing-harness';

let h: BillingHarness;
const CONCURRENT = 200;
const N = 37;
const WORST = text(30, 70);
const C = cost(30, 70);

beforeAll(async () => {
  h = await createBillingHarness('billing_race', { BILLING_DB_POOL_MAX: '8' });
  // Two replicas in the queue group, as in production: atomicity must hold across processes.
  await Promise.all([h.start(), h.start()]);
});
afterAll(() => h?.stop());

function reserveAll(accountId: string, apiKeyId = KEY, keyLimits = { usd: null as number | null, diem: null as number | null, period: 'EPOCH' as const }) {
  return Promise.allSettled(
    Array.from({ length: CONCURRENT }, () =>
      h.rpc.send(BILLING.RESERVE, {
        reservationId: randomUUID(),
        requestId: randomUUID().slice(0, 16),
        accountId,
        apiKeyId,
        keyLimits,
        model: { id: 'tiny', name: 'Tiny', type: 'text' },
        pricing: PRICING,
        worstCase: WORST,
      }),
    ),
  );
}

const admitted = (results: PromiseSettledResult<ReserveReply>[]) =>
  results.filter((r): r is PromiseFulfilledResult<ReserveReply> => r.status === 'fulfilled').map((r) => r.value);
const refusals = (results: PromiseSettledResult<ReserveReply>[]) =>
  results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as { code: string });

describe(`${CONCURRENT} concurrent requests`, () => {
  it(`admits exactly ${N} when the balance covers exactly ${N}, and ends at exactly zero`, async () => {
    const account = newAccount();
    await h.credit(account, usd(BigInt(N) * C));
    const results = await reserveAll(account);
    expect(admitted(results)).toHaveLength(N);
    expect(refusals(results).every((e) => e.code === ErrorCode.InsufficientCredits)).toBe(true);
    await Promise.all(admitted(results).map((r) => h.settle(r.reservationId, { usage: WORST })));
    expect(await h.balance(account)).toEqual({ usd: '0.00', diem: '0.00' });
    const { rows } = await h.sql.query('SELECT balance_usd_nano::text AS balance, held_usd_nano::text AS held FROM billing_accounts WHERE id = $1', [account]);
    expect(rows[0]).toEqual({ balance: '0', held: '0' });
    expect(await h.reconcile()).toMatchObject({ mismatches: [] });
  });

  it(`admits exactly ${N} on a key whose consumption limit covers exactly ${N}, then refuses naming the limit`, async () => {
    const account = newAccount();
    await h.credit(account, '10');
    const limit = Number(usd(BigInt(N) * C));
    const key = randomUUID();
    const results = await reserveAll(account, key, { usd: limit, diem: null, period: 'EPOCH' });
    expect(admitted(results)).toHaveLength(N);
    await Promise.all(admitted(results).map((r) => h.settle(r.reservationId, { usage: WORST })));
    const { rows } = await h.sql.query(
      `SELECT period, used_usd_nano::text AS used, held_usd_nano::text AS held FROM key_usage WHERE api_key_id = $1 AND period LIKE 'D:%'`,
      [key],
    );
    expect(rows).toEqual([{ period: expect.stringMatching(/^D:/), used: (BigInt(N) * C).toString(), held: '0' }]);
    const err = await h.reserve(account, { apiKeyId: key, worstCase: WORST, keyLimits: { usd: limit, diem: null, period: 'EPOCH' } }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: ErrorCode.InsufficientCredits,
      message: expect.stringMatching(/^This API key's USD consumption limit of .* per epoch \(UTC day\) does not cover this request/),
    });
    expect(await h.balance(account)).toEqual({ usd: usd(10_000_000_000n - BigInt(N) * C), diem: '0.00' });
  });
});
