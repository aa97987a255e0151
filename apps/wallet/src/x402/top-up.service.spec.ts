import { DomainError } from '@svc/errors';
import { BASE_PAY_TO, evmPayment } from '@svc/testing/wallet';
import { WalletAccounts } from '../accounts/wallet-accounts';
import { EvmPaymentVerifier } from './evm-payment.verifier';
import { TopUpService } from './top-up.service';
import { X402BillingClient } from './x402-billing.client';
import { X402Config } from './x402-config.type';

const config = { X402_BASE_PAY_TO: BASE_PAY_TO, X402_BASE_USDC: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', X402_MAX_TIMEOUT_SECONDS: 300 } as X402Config;
const untouchable = new Proxy({}, { get: () => () => Promise.reject(new Error('must not be called')) });

describe('TopUpService without a facilitator', () => {
  const service = new TopUpService(config, null, [new EvmPaymentVerifier()], untouchable as WalletAccounts, untouchable as X402BillingClient);

  it('answers 503 with a clear message to a valid payment, before any account or credit', async () => {
    const p = await evmPayment({ usd: 10 });
    const error = await service.topUp(p.header, 'r1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ status: 503, message: expect.stringContaining('X402_FACILITATOR_URL') });
  });

  it('offers nothing to pay either', () => {
    expect(() => service.requirements()).toThrow(/no x402 facilitator configured/);
    expect(service.offered()).toEqual([]);
  });
});
