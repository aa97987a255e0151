import { FastifyRequest } from 'fastify';
import { ModelDefinition } from '@svc/catalog';
import { AuthenticatedKey, BalanceReply, BILLING, X402, X402PaymentTermsReply } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { createLogger } from '@svc/logging';
import { fakeRpc, FakeHandlers } from '@svc/messaging/testing';
import { AdmissionRequest } from '../admission/admission.types';
import { ProtocolError, toErrorResponse } from '../http/error-response';
import { WalletPaymentRefusals } from './wallet-payment-refusals';
import { X402PaymentTerms } from './x402-payment-terms';

const key: AuthenticatedKey = {
  id: 'acct-1',
  accountId: 'acct-1',
  apiKeyType: 'INFERENCE',
  expiresAt: null,
  consumptionLimits: { usd: null, diem: null },
  limitPeriod: 'MONTH',
  modelPrivacy: 'ALL',
};
const wallet = { ...key, wallet: { address: '0x1111111111111111111111111111111111111111', network: 'evm' as const } };
const model = {
  id: 'tiny',
  name: 'Tiny',
  type: 'text',
  pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } },
} as unknown as ModelDefinition;
// 13 x 10 + 64 x 20 nano-USD.
const request = (k: AuthenticatedKey): AdmissionRequest => ({
  requestId: 'r1',
  key: k,
  model,
  worstCase: { kind: 'text', promptTokens: 13, completionTokens: 64 },
  ip: '127.0.0.1',
});
const http = { url: '/api/v1/chat/completions?x=1' } as FastifyRequest;
const terms: X402PaymentTermsReply = {
  x402Version: 2,
  accepts: [],
  siwx: { domain: 'api.test', origin: 'https://api.test', statement: 's', maxAgeMs: 60_000, supportedChains: [{ chainId: 'eip155:8453', type: 'eip191' }] },
};
const refused = () => new DomainError(ErrorCode.InsufficientCredits, 'Insufficient balance.');

function refusals(handlers: FakeHandlers) {
  const { rpc } = fakeRpc(handlers);
  return new WalletPaymentRefusals(new X402PaymentTerms(rpc), rpc, createLogger('gateway-test', 'silent'));
}
const balance: BalanceReply = {
  usdNano: '700',
  diemNano: '0',
  diemAllocationNano: '0',
  consumptionOrder: 'USD_FIRST',
  consumptionCurrency: 'USD',
  canConsume: true,
  epoch: '2026-01-01',
};
const answering = refusals({ [X402.PAYMENT_TERMS]: () => terms, [BILLING.BALANCE]: () => balance });

describe('WalletPaymentRefusals', () => {
  it("answers a wallet's refusal for credit with x402's body, its balance and the hold", async () => {
    const err = await answering.explain(refused(), request(wallet), http);
    expect(err).toBeInstanceOf(ProtocolError);
    const { status, body, headers } = toErrorResponse(err);
    expect(status).toBe(402);
    expect(body).toMatchObject({ code: 'PAYMENT_REQUIRED', currentBalanceUsd: 0.0000007, minimumBalanceUsd: 0.00000141 });
    expect(body).toMatchObject({ siwxChallenge: { info: { uri: 'https://api.test/api/v1/chat/completions' } } });
    expect(headers).toEqual({ 'x-balance-remaining': '0.0000007' });
  });

  it('leaves keys, and other errors, as they are', async () => {
    const forKey = refused();
    expect(await answering.explain(forKey, request(key), http)).toBe(forKey);
    const limited = new DomainError(ErrorCode.RateLimited, 'Slow down.');
    expect(await answering.explain(limited, request(wallet), http)).toBe(limited);
  });

  it('falls back to the ordinary 402 when the terms cannot be had', async () => {
    const err = refused();
    const noResponders = () => {
      throw new Error('no responders');
    };
    const failing = refusals({ [X402.PAYMENT_TERMS]: noResponders, [BILLING.BALANCE]: noResponders });
    expect(await failing.explain(err, request(wallet), http)).toBe(err);
  });
});
