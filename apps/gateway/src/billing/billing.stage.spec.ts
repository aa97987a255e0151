import { NatsConnection } from 'nats';
import { ModelDefinition } from '@svc/catalog';
import { AuthenticatedKey, BILLING, LeaseCloseRequest, LeaseOpenReply, LeaseOpenRequest, ReserveReply, ReserveRequest, SettleRequest } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { createLogger } from '@svc/logging';
import { BillingSettler } from '@svc/billing-client';
import { AdmissionRequest } from '../admission/admission.types';
import { BillingStage } from './billing.stage';
import { CreditLeases } from './credit-leases';
import { fakeRpc } from '@svc/messaging/testing';

const noNats = { subscribe: () => ({ unsubscribe: () => undefined }) } as unknown as NatsConnection;

const key: AuthenticatedKey = {
  id: 'key-1',
  accountId: 'acct-1',
  apiKeyType: 'INFERENCE',
  expiresAt: null,
  consumptionLimits: { usd: 5, diem: null },
  limitPeriod: 'MONTH',
  modelPrivacy: 'ALL',
};
const model = {
  id: 'tiny',
  name: 'Tiny',
  type: 'text',
  pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } },
} as unknown as ModelDefinition;
const request: AdmissionRequest = { requestId: 'req-1', key, model, worstCase: { kind: 'text', promptTokens: 13, completionTokens: 64 }, ip: '127.0.0.1' };

const EXACT: LeaseOpenReply = { outcome: 'exact' };
const logger = createLogger('gateway-test', 'silent');

function setup(
  reserve: (r: ReserveRequest) => ReserveReply = () => ({
    reservationId: 'x',
    currency: 'USD',
    heldNano: '1410',
    balancesBefore: { usd: '99999998590', diem: '0' },
    replay: false,
  }),
  lease: (r: LeaseOpenRequest) => LeaseOpenReply = () => EXACT,
  /** Billing's answer to "may it fit once what is held settles?" */
  mayFitLater: () => boolean = () => false,
) {
  const settles: SettleRequest[] = [];
  const reserves: ReserveRequest[] = [];
  const opens: LeaseOpenRequest[] = [];
  const closes: LeaseCloseRequest[] = [];
  const asks: unknown[] = [];
  const { rpc } = fakeRpc({
    [BILLING.MAY_FIT_LATER]: (body) => {
      asks.push(body);
      return { mayFitLater: mayFitLater() };
    },
    [BILLING.RESERVE]: (body) => {
      reserves.push(body);
      return reserve(body);
    },
    [BILLING.LEASE_OPEN]: (body) => {
      opens.push(body);
      return lease(body);
    },
    [BILLING.LEASE_CLOSE]: (body) => {
      closes.push(body);
      return { status: 'closing', releasedNano: '0' };
    },
    [BILLING.SETTLE_BATCH]: (body) => {
      settles.push(...body.items);
      return { results: [] };
    },
    [BILLING.SETTLE]: (body) => {
      settles.push(body);
      return { status: 'released', currency: 'USD', chargedNano: '0' };
    },
  });
  const leases = new CreditLeases(rpc, noNats, logger);
  const settler = new BillingSettler(rpc, logger);
  const stage = new BillingStage(rpc, leases, settler, logger, undefined, { BILLING_MARGIN_WAIT_MS: 5_000 });
  const stop = async () => {
    await stage.onApplicationShutdown();
    await leases.onApplicationShutdown();
    await settler.drain();
  };
  return { stage, reserves, settles, opens, closes, asks, stop };
}

describe('BillingStage', () => {
  it('reserves the worst case with the key’s limits and the model’s prices, and reports balances before the request', async () => {
    const { stage, reserves } = setup();
    const ticket = await stage.admit(request);
    expect(reserves[0]).toEqual({
      reservationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      requestId: 'req-1',
      accountId: 'acct-1',
      apiKeyId: 'key-1',
      keyLimits: { usd: 5, diem: null, period: 'MONTH' },
      model: { id: 'tiny', name: 'Tiny', type: 'text' },
      pricing: model.pricing,
      worstCase: { kind: 'text', promptTokens: 13, completionTokens: 64 },
    });
    expect(ticket.headers).toEqual({ 'x-svc-balance-usd': '99.99999859', 'x-svc-balance-diem': '0.00' });
    expect(ticket.billing).toEqual({ reservationId: reserves[0].reservationId });
    expect(ticket.costOf?.({ promptTokens: 10, completionTokens: 5 })).toEqual({ usd: 0.0000002, diem: 0 });
  });

  it('passes a refusal on (402) and holds nothing', async () => {
    const { stage, settles } = setup(() => {
      throw new DomainError(ErrorCode.InsufficientCredits, 'Insufficient balance');
    });
    await expect(stage.admit(request)).rejects.toMatchObject({ status: 402 });
    expect(settles).toEqual([]);
  });

  describe('at the margin (docs/billing.md, "Exact at the margin")', () => {
    /** Billing that admits a worst case of at most `room` tokens (prompt + completion), and refuses more. */
    const roomFor =
      (room: { tokens: number }) =>
      (r: ReserveRequest): ReserveReply => {
        const w = r.worstCase as { promptTokens: number; completionTokens: number };
        if (w.promptTokens + w.completionTokens > room.tokens) throw new DomainError(ErrorCode.InsufficientCredits, 'Insufficient balance.');
        room.tokens -= w.promptTokens + w.completionTokens;
        return { reservationId: r.reservationId, currency: 'USD', heldNano: '1', balancesBefore: { usd: '1', diem: '0' }, replay: false };
      };
    const bytes = { kind: 'text' as const, promptTokens: 200, completionTokens: 64 };
    const exact = { kind: 'text' as const, promptTokens: 50, completionTokens: 64 };

    it('counts the worst case exactly only when the cheap bound is refused, and admits on it', async () => {
      const { stage, reserves } = setup(roomFor({ tokens: 120 }));
      const counted = jest.fn(async () => exact);
      const ticket = await stage.admit({ ...request, worstCase: bytes, exactWorstCase: counted });
      expect(counted).toHaveBeenCalledTimes(1);
      expect(reserves.map((r) => r.worstCase)).toEqual([bytes, exact]);
      expect(ticket.completionCap).toBeUndefined();
    });

    it('waits for a running request of the account to end, then admits the one that now fits', async () => {
      const room = { tokens: 180 }; // one worst case of 114 fits, not two
      const { stage } = setup(roomFor(room));
      const first = await stage.admit({ ...request, worstCase: exact });
      let admitted = false;
      const second = stage.admit({ ...request, worstCase: exact }).then((t) => ((admitted = true), t));
      await new Promise((r) => setTimeout(r, 50));
      expect(admitted).toBe(false);
      room.tokens += 114 - 60; // the first one cost 60 of its 114
      await first.settle({ promptTokens: 50, completionTokens: 5 });
      await second;
      expect(admitted).toBe(true);
    });

    it('answers a refusal at once when nothing of the account runs here and billing says nothing held could make room', async () => {
      const { stage, reserves, asks } = setup(roomFor({ tokens: 10 }));
      await expect(stage.admit({ ...request, worstCase: exact })).rejects.toMatchObject({ status: 402 });
      expect(reserves).toHaveLength(1);
      expect(asks).toEqual([expect.objectContaining({ accountId: 'acct-1', apiKeyId: 'key-1', worstCase: exact })]);
    });

    it('waits while billing says credit held elsewhere (another replica, a lease) may make room, and admits once it has', async () => {
      const room = { tokens: 10 };
      const { stage, reserves, asks } = setup(roomFor(room), undefined, () => true);
      const admitted = stage.admit({ ...request, worstCase: exact });
      await new Promise((r) => setTimeout(r, 120));
      expect(reserves.length).toBeGreaterThanOrEqual(2); // asked again after each wait
      room.tokens = 200; // another replica's request settled
      await expect(admitted).resolves.toMatchObject({ billing: { reservationId: expect.any(String) } });
      expect(asks.length).toBe(reserves.length - 1);
    });

    it("does not make a key with a limit wait on another key's requests (they cannot free its limit)", async () => {
      const room = { tokens: 120 };
      const { stage, reserves } = setup(roomFor(room));
      const other = { ...key, id: 'key-2', consumptionLimits: { usd: null, diem: null } };
      const running = await stage.admit({ ...request, key: other, worstCase: exact });
      await expect(stage.admit({ ...request, worstCase: exact })).rejects.toMatchObject({ status: 402 });
      expect(reserves).toHaveLength(2);
      await running.settle(null);
    });

    it('caps the completion (halving, at least 16 tokens) when nothing runs that could free room, with a header', async () => {
      const { stage, reserves } = setup(roomFor({ tokens: 90 }));
      const shrink = { cap: 64, worstCaseFor: (cap: number) => ({ kind: 'text' as const, promptTokens: 50, completionTokens: cap }) };
      const ticket = await stage.admit({ ...request, worstCase: exact, shrink });
      expect(ticket.completionCap).toBe(32);
      expect(ticket.headers['x-svc-completion-capped']).toBe('32');
      expect(reserves.at(-1)?.worstCase).toEqual({ kind: 'text', promptTokens: 50, completionTokens: 32 });
    });

    it('refuses with the hint when even 16 completion tokens do not fit', async () => {
      const { stage } = setup(roomFor({ tokens: 60 }));
      const shrink = { cap: 64, worstCaseFor: (cap: number) => ({ kind: 'text' as const, promptTokens: 50, completionTokens: cap }) };
      await expect(stage.admit({ ...request, worstCase: exact, shrink, refusalHint: 'Send a smaller max_tokens.' })).rejects.toMatchObject({
        status: 402,
        message: 'Insufficient balance. Send a smaller max_tokens.',
      });
    });
  });

  it('releases at once when nothing was produced, and only then', async () => {
    const { stage, settles } = setup();
    const ticket = await stage.admit(request);
    await ticket.settle(null);
    expect(settles).toEqual([{ reservationId: expect.any(String), source: 'gateway', outcome: 'failed', usage: null }]);
  });

  it('reports a cut stream as a fallback with an unknown prompt count, and leaves completed requests to the service', async () => {
    const { stage, settles } = setup();
    const cut = await stage.admit(request);
    await cut.settle({ promptTokens: 0, completionTokens: 7, cut: true });
    const done = await stage.admit({ ...request, requestId: 'req-2' });
    await done.settle({ promptTokens: 10, completionTokens: 5 });
    await stage.onApplicationShutdown();
    expect(settles).toEqual([
      { reservationId: expect.any(String), source: 'gateway', outcome: 'cut', usage: { kind: 'text', promptTokens: null, completionTokens: 7 } },
    ]);
  });

  it('asks for a lease first, sized in this request’s worst case, and reserves exactly when billing says so', async () => {
    const { stage, opens, reserves, stop } = setup();
    await stage.admit(request);
    await stage.admit({ ...request, requestId: 'req-2' });
    // 13 prompt tokens at 0.01 USD/M + 64 completion tokens at 0.02 USD/M, rounded up per line.
    expect(opens).toEqual([
      {
        leaseId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        accountId: 'acct-1',
        apiKeyId: 'key-1',
        keyLimits: { usd: 5, diem: null, period: 'MONTH' },
        unitNano: { usd: '1410', diem: '1410' },
      },
    ]);
    // Within EXACT_RECHECK_MS the second request goes straight to its reservation.
    expect(reserves).toHaveLength(2);
    await stop();
  });

  it('admits under a granted lease with no round trip, takes each hold from it, and closes it with what it admitted', async () => {
    const granted = (r: LeaseOpenRequest): LeaseOpenReply => ({
      outcome: 'granted',
      leaseId: r.leaseId,
      currency: 'USD',
      grantedNano: '2820',
      balancesBefore: { usd: '1000000', diem: '5' },
      admitUntil: new Date(Date.now() + 60_000).toISOString(),
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
      replay: false,
    });
    const { stage, opens, reserves, settles, closes, stop } = setup(undefined, granted);
    const first = await stage.admit(request);
    const second = await stage.admit({ ...request, requestId: 'req-2' });
    expect(reserves).toEqual([]);
    expect(first.headers).toEqual({ 'x-svc-balance-usd': '0.001', 'x-svc-balance-diem': '0.000000005' });
    expect(second.headers['x-svc-balance-usd']).toBe('0.00099859');
    expect(first.billing).toEqual({
      reservationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      lease: {
        leaseId: opens[0].leaseId,
        currency: 'USD',
        heldNano: '1410',
        requestId: 'req-1',
        apiKeyId: 'key-1',
        model: { id: 'tiny', name: 'Tiny', type: 'text' },
        pricing: model.pricing,
        worstCase: request.worstCase,
      },
    });
    // The lease is spent: the next request needs another one (a prefetch may have opened it already).
    await stage.admit({ ...request, requestId: 'req-3' });
    expect(opens.length).toBe(2);
    await first.settle({ promptTokens: 1, completionTokens: 1 });
    await second.settle(null);
    await stop();
    // The failed one is reported (in a batch) with its lease, so billing can count it as ended.
    expect(settles).toEqual([
      { reservationId: second.billing!.reservationId, source: 'gateway', outcome: 'failed', usage: null, lease: second.billing!.lease },
    ]);
    expect(closes).toContainEqual({ leaseId: opens[0].leaseId, admitted: 2, admittedNano: '2820' });
  });
});
