import { ModelDefinition } from '@svc/catalog';
import { AuthenticatedKey, BILLING, ReserveRequest, SettleRequest } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { createLogger } from '@svc/logging';
import { RpcClient } from '@svc/messaging';
import { AdmissionRequest } from '../admission/admission.types';
import { BillingStage } from './billing.stage';

const key: AuthenticatedKey = {
  id: 'key-1',
  accountId: 'acct-1',
  apiKeyType: 'INFERENCE',
  expiresAt: null,
  consumptionLimits: { usd: 5, diem: null },
  limitPeriod: 'MONTH',
  modelPrivacy: 'ALL',
};
const model = { id: 'tiny', name: 'Tiny', type: 'text', pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } } } as unknown as ModelDefinition;
const request: AdmissionRequest = { requestId: 'req-1', key, model, worstCase: { kind: 'text', promptTokens: 13, completionTokens: 64 }, ip: '127.0.0.1' };

function setup(reserve: (r: ReserveRequest) => unknown = () => ({ reservationId: 'x', currency: 'USD', heldNano: '1410', balancesBefore: { usd: '99999998590', diem: '0' }, replay: false })) {
  const settles: SettleRequest[] = [];
  const reserves: ReserveRequest[] = [];
  const rpc = {
    send: async (subject: string, body: unknown) => {
      if (subject === BILLING.RESERVE) {
        reserves.push(body as ReserveRequest);
        return reserve(body as ReserveRequest);
      }
      settles.push(body as SettleRequest);
      return { status: 'released', currency: 'USD', chargedNano: '0' };
    },
  } as unknown as RpcClient;
  return { stage: new BillingStage(rpc, createLogger('gateway-test', 'silent')), reserves, settles };
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
    expect(settles).toEqual([{ reservationId: expect.any(String), source: 'gateway', outcome: 'cut', usage: { kind: 'text', promptTokens: null, completionTokens: 7 } }]);
  });
});
