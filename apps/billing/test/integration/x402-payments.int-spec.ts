import { BILLING_X402, X402ClaimRequest } from '@svc/contracts';
import { BillingHarness, createBillingHarness, newAccount } from './support/billing-harness';

let h: BillingHarness;

beforeAll(async () => {
  h = await createBillingHarness('billing_x402');
  // Two replicas in the queue group: the claim and the credit must hold across processes.
  await Promise.all([h.start(), h.start()]);
});
afterAll(() => h?.stop());

let n = 0;
function payment(accountId: string, usd = 10): X402ClaimRequest {
  n += 1;
  return {
    reference: `eip155:8453:0xpayer:0x${Date.now().toString(16)}${n}`,
    accountId,
    walletAddress: '0xPayer',
    network: 'eip155:8453',
    amountNano: String(BigInt(usd) * 1_000_000_000n),
    payment: { accepted: { amount: String(usd * 1e6) } },
  };
}

describe('x402 payments in billing', () => {
  it('two identical claims racing: exactly one claims the payment', async () => {
    const p = payment(newAccount());
    const replies = await Promise.all(Array.from({ length: 8 }, () => h.rpc.send(BILLING_X402.CLAIM, p)));
    expect(replies.filter((r) => r.claimed)).toHaveLength(1);
    expect(new Set(replies.map((r) => r.paymentId)).size).toBe(1);
    expect(replies.every((r) => r.status === 'PENDING')).toBe(true);
  });

  it('credits a settled payment once, even when the credit races, and never an unsettled one', async () => {
    const account = newAccount();
    const p = payment(account, 25);
    await h.rpc.send(BILLING_X402.CLAIM, p);
    const early = await h.rpc.send(BILLING_X402.CREDIT, { reference: p.reference });
    expect(early.status).toBe('not_settled');
    expect((await h.balance(account)).usd).toBe('0.00');

    await h.rpc.send(BILLING_X402.SETTLED, { reference: p.reference, transaction: '0xabc' });
    const credits = await Promise.all(Array.from({ length: 8 }, () => h.rpc.send(BILLING_X402.CREDIT, { reference: p.reference })));
    expect(credits.filter((c) => c.status === 'applied')).toHaveLength(1);
    expect(credits.filter((c) => c.status === 'duplicate')).toHaveLength(7);
    expect((await h.balance(account)).usd).toBe('25.00');
    expect(await h.reconcile()).toMatchObject({ mismatches: [] });

    const again = await h.rpc.send(BILLING_X402.CLAIM, p);
    expect(again).toMatchObject({ claimed: false, status: 'CREDITED' });
  });

  it('a refused payment may be claimed again; a settled one survives a restart as unfinished work', async () => {
    const p = payment(newAccount());
    await h.rpc.send(BILLING_X402.CLAIM, p);
    await h.rpc.send(BILLING_X402.FAILED, { reference: p.reference, reason: 'insufficient_funds' });
    expect(await h.rpc.send(BILLING_X402.CLAIM, p)).toMatchObject({ claimed: true, status: 'PENDING' });

    await h.rpc.send(BILLING_X402.SETTLED, { reference: p.reference, transaction: '0xdef' });
    const { payments } = await h.rpc.send(BILLING_X402.UNFINISHED, { olderThanMs: 0, limit: 1000 });
    expect(payments.find((u) => u.reference === p.reference)).toMatchObject({ status: 'SETTLED', payment: p.payment });
    // A refusal arriving after settlement changes nothing.
    expect(await h.rpc.send(BILLING_X402.FAILED, { reference: p.reference, reason: 'late' })).toEqual({ status: 'SETTLED' });
  });

  it('a settlement outranks a refusal that overlapped it: the payment is credited', async () => {
    const account = newAccount();
    const p = payment(account, 6);
    await h.rpc.send(BILLING_X402.CLAIM, p);
    // Another attempt, refused because this one's settlement spent the nonce, lands first.
    await h.rpc.send(BILLING_X402.FAILED, { reference: p.reference, reason: 'nonce_already_used' });
    expect(await h.rpc.send(BILLING_X402.SETTLED, { reference: p.reference, transaction: '0xbeef' })).toEqual({ status: 'SETTLED' });
    expect(await h.rpc.send(BILLING_X402.CREDIT, { reference: p.reference })).toMatchObject({ status: 'applied', transaction: '0xbeef' });
    expect((await h.balance(account)).usd).toBe('6.00');
  });

  it('history lists the top-up with the balance after it, newest first, paginated', async () => {
    const account = newAccount();
    for (const usd of [5, 7]) {
      const p = payment(account, usd);
      await h.rpc.send(BILLING_X402.CLAIM, p);
      await h.rpc.send(BILLING_X402.SETTLED, { reference: p.reference, transaction: `0x${usd}` });
      await h.rpc.send(BILLING_X402.CREDIT, { reference: p.reference });
    }
    const page = await h.rpc.send(BILLING_X402.HISTORY, { accountId: account, limit: 1, offset: 0 });
    expect(page.hasMore).toBe(true);
    expect(page.balanceNano).toBe('12000000000');
    expect(page.entries).toEqual([expect.objectContaining({ kind: 'TOP_UP', amountNano: '7000000000', balanceAfterNano: '12000000000', requestId: null })]);
    const second = await h.rpc.send(BILLING_X402.HISTORY, { accountId: account, limit: 5, offset: 1 });
    expect(second.hasMore).toBe(false);
    expect(second.entries.map((e) => e.balanceAfterNano)).toEqual(['5000000000']);
  });
});
