import { randomUUID } from 'node:crypto';
import { BILLING, MayFitLaterRequest } from '@svc/contracts';
import { ErrorCode } from '@svc/errors';
import { BillingHarness, cost, createBillingHarness, KEY, newAccount, PRICING, text, usd } from './support/billing-harness';

/**
 * `billing.query.may-fit-later.v1` (docs/billing.md, "Exact at the margin"): after a refusal, the
 * gateway asks whether credit held now (requests running on any replica, leases) could make room
 * once settled; "no" means waiting cannot help, so the 402 goes out at once.
 */
let h: BillingHarness;
const WORST = text(30, 70);
const C = cost(30, 70);

beforeAll(async () => {
  h = await createBillingHarness('billing_margin');
  await h.start();
});
afterAll(() => h?.stop());

const ask = (accountId: string, over: Partial<MayFitLaterRequest> = {}) =>
  h.rpc.send(BILLING.MAY_FIT_LATER, {
    requestId: 'margin-test',
    accountId,
    apiKeyId: KEY,
    keyLimits: { usd: null, diem: null, period: 'EPOCH' },
    model: { id: 'tiny', name: 'Tiny', type: 'text' },
    pricing: PRICING,
    worstCase: WORST,
    ...over,
  });

describe('may a refused request fit once what is held settles?', () => {
  it('yes while another request holds the credit it needs; no once that one settled and spent it', async () => {
    const account = newAccount();
    await h.credit(account, usd(C + C / 2n));
    const first = await h.reserve(account, { worstCase: WORST });
    await expect(h.reserve(account, { worstCase: WORST })).rejects.toMatchObject({ code: ErrorCode.InsufficientCredits });
    await expect(ask(account)).resolves.toEqual({ mayFitLater: true });
    await h.settle(first.reservationId, { usage: WORST });
    await expect(ask(account)).resolves.toEqual({ mayFitLater: false });
  });

  it('no when even the settled balance is too small, and for an account billing has never seen', async () => {
    const account = newAccount();
    await h.credit(account, usd(C / 2n));
    await expect(ask(account)).resolves.toEqual({ mayFitLater: false });
    await expect(ask(newAccount())).resolves.toEqual({ mayFitLater: false });
  });

  it("for a key whose limit refuses it: yes while that key's own requests hold part of the window, not for another key's", async () => {
    const account = newAccount();
    await h.credit(account, '10');
    const limited = randomUUID();
    const keyLimits = { usd: Number(usd(C + C / 2n)), diem: null, period: 'EPOCH' as const };
    const running = await h.reserve(account, { apiKeyId: limited, keyLimits, worstCase: WORST });
    await expect(ask(account, { apiKeyId: limited, keyLimits })).resolves.toEqual({ mayFitLater: true });
    // Another key of the same account, with a limit of its own that it has used up: the first key's hold is not its to wait for.
    const other = randomUUID();
    const otherLimits = { usd: Number(usd(C / 2n)), diem: null, period: 'EPOCH' as const };
    await expect(ask(account, { apiKeyId: other, keyLimits: otherLimits })).resolves.toEqual({ mayFitLater: false });
    await h.settle(running.reservationId, { usage: WORST });
    await expect(ask(account, { apiKeyId: limited, keyLimits })).resolves.toEqual({ mayFitLater: false });
  });

  it('answers a bad request with a validation error, not a crash', async () => {
    await expect(h.rpc.send(BILLING.MAY_FIT_LATER, { accountId: 'not-a-uuid' } as never)).rejects.toMatchObject({ code: ErrorCode.Validation });
  });
});
