import { AuthenticatedKey, BILLING, LeaseCloseRequest, LeaseOpenReply, LeaseOpenRequest } from '@svc/contracts';
import { createLogger } from '@svc/logging';
import { NatsConnection } from 'nats';
import { CreditLeases, LEASE_IDLE_MS } from './credit-leases';
import { fakeRpc } from '@svc/messaging/testing';

const key: AuthenticatedKey = {
  id: 'key-1',
  accountId: 'acct-1',
  apiKeyType: 'INFERENCE',
  expiresAt: null,
  consumptionLimits: { usd: null, diem: null },
  limitPeriod: 'EPOCH',
  modelPrivacy: 'ALL',
};
const cost = { usd: 100n, diem: 90n };
/** The account-change subscription is exercised end to end (e2e/billing.e2e-spec.ts); here revokeAccount is called directly. */
const noNats = { subscribe: () => ({ unsubscribe: () => undefined }) } as unknown as NatsConnection;

/** A billing that grants `units` worst cases per lease (or answers `exact`), answering when `release()` is called if `hold` is set. */
function billing(units: number | 'exact', options: { hold?: boolean } = {}) {
  const opens: LeaseOpenRequest[] = [];
  const closes: LeaseCloseRequest[] = [];
  const waiting: Array<() => void> = [];
  const { rpc } = fakeRpc({
    [BILLING.LEASE_CLOSE]: (body) => {
      closes.push(body);
      return { status: 'closed', releasedNano: '0' };
    },
    [BILLING.LEASE_OPEN]: async (open) => {
      opens.push(open);
      if (options.hold) await new Promise<void>((resolve) => waiting.push(resolve));
      if (units === 'exact') return { outcome: 'exact' } satisfies LeaseOpenReply;
      return {
        outcome: 'granted',
        leaseId: open.leaseId,
        currency: 'USD',
        grantedNano: String(100 * units),
        balancesBefore: { usd: '1000000', diem: '0' },
        admitUntil: new Date(Date.now() + 60_000).toISOString(),
        expiresAt: new Date(Date.now() + 600_000).toISOString(),
        replay: false,
      } satisfies LeaseOpenReply;
    },
  });
  const release = () => waiting.splice(0).forEach((resolve) => resolve());
  return { leases: new CreditLeases(rpc, noNats, createLogger('gateway-test', 'silent')), opens, closes, release };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('CreditLeases', () => {
  it('opens one lease for many concurrent first requests, and admits them all under it', async () => {
    const { leases, opens, release } = billing(64, { hold: true });
    const takes = Array.from({ length: 10 }, (_, i) => leases.take(key, cost, `r${i}`));
    await tick();
    release();
    const grants = await Promise.all(takes);
    expect(opens).toHaveLength(1);
    expect(new Set(grants.map((g) => g?.lease.id))).toEqual(new Set([opens[0].leaseId]));
    expect(grants.map((g) => g?.hold)).toEqual(Array(10).fill(100n));
    await leases.onApplicationShutdown();
  });

  it('opens the next lease when the current one is half used, and moves to it without waiting', async () => {
    const { leases, opens, closes } = billing(4);
    const grants = [await leases.take(key, cost, 'a'), await leases.take(key, cost, 'b'), await leases.take(key, cost, 'c')];
    await tick(); // below half after the third: the next lease is asked for now
    expect(opens).toHaveLength(2);
    grants.push(await leases.take(key, cost, 'd'));
    const fifth = await leases.take(key, cost, 'e'); // the first is spent
    expect(fifth?.lease.id).toBe(opens[1].leaseId);
    expect(opens).toHaveLength(2);
    // The first lease closes once its four requests have ended, with what it admitted.
    grants.slice(0, 3).forEach((g) => g?.end());
    await tick();
    expect(closes).toEqual([]);
    grants[3]?.end();
    await tick();
    expect(closes).toEqual([{ leaseId: opens[0].leaseId, admitted: 4, admittedNano: '400' }]);
    await leases.onApplicationShutdown();
  });

  it('answers null (reserve exactly) while billing says the account is too small for a lease', async () => {
    const { leases, opens } = billing('exact');
    expect(await leases.take(key, cost, 'a')).toBeNull();
    expect(await leases.take(key, cost, 'b')).toBeNull();
    expect(opens).toHaveLength(1);
    await leases.onApplicationShutdown();
  });

  it('keeps a limited key’s lease apart from the account’s, and sends the key’s limits', async () => {
    const { leases, opens } = billing(16);
    const limited = { ...key, id: 'key-2', consumptionLimits: { usd: 5, diem: null } };
    const a = await leases.take(key, cost, 'a');
    const b = await leases.take(limited, cost, 'b');
    expect(a?.lease.id).not.toBe(b?.lease.id);
    expect(opens.map((o) => [o.apiKeyId, o.keyLimits.usd])).toEqual([
      [null, null],
      ['key-2', 5],
    ]);
    await leases.onApplicationShutdown();
  });

  it('closes a lease nobody used for a while, returning it to the account', async () => {
    const { leases, opens, closes } = billing(16);
    const grant = await leases.take(key, cost, 'a');
    grant?.end();
    await new Promise((resolve) => setTimeout(resolve, LEASE_IDLE_MS + 400));
    expect(closes).toEqual([{ leaseId: opens[0].leaseId, admitted: 1, admittedNano: '100' }]);
    // The next request opens a new one.
    expect((await leases.take(key, cost, 'b'))?.lease.id).not.toBe(opens[0].leaseId);
    await leases.onApplicationShutdown();
  });

  it('stops admitting under an account’s leases when billing says the account changed, including one being opened', async () => {
    const { leases, opens, closes, release } = billing(16, { hold: true });
    const first = leases.take(key, cost, 'a');
    await tick();
    release();
    const grant = await first;
    leases.revokeAccount(key.accountId);
    // The in-flight request keeps its hold; the lease closes when it ends.
    expect(closes).toEqual([]);
    grant?.end();
    await tick();
    expect(closes).toEqual([{ leaseId: opens[0].leaseId, admitted: 1, admittedNano: '100' }]);

    // A lease granted while the change was announced is returned unused: that request reserves exactly.
    const racing = leases.take(key, cost, 'b');
    await tick();
    leases.revokeAccount(key.accountId);
    release();
    expect(await racing).toBeNull();
    await tick();
    expect(closes.at(-1)).toEqual({ leaseId: opens[1].leaseId, admitted: 0, admittedNano: '0' });

    // The next request opens a fresh lease.
    const next = leases.take(key, cost, 'c');
    await tick();
    release();
    expect((await next)?.lease.id).toBe(opens[2].leaseId);
    await leases.onApplicationShutdown();
  });

  it('gives a limited key whose limits changed a new lease', async () => {
    const { leases, opens } = billing(16);
    const limited = { ...key, id: 'key-2', consumptionLimits: { usd: 5, diem: null } };
    const a = await leases.take(limited, cost, 'a');
    const b = await leases.take({ ...limited, consumptionLimits: { usd: 1, diem: null } }, cost, 'b');
    expect(b?.lease.id).not.toBe(a?.lease.id);
    expect(opens.map((o) => o.keyLimits.usd)).toEqual([5, 1]);
    await leases.onApplicationShutdown();
  });
});
