import { X402PaymentRequirements, X402PaymentTermsReply } from '@svc/contracts';
import { walletPaymentRequired } from './wallet-payment-required';

const BASE_OPTION: X402PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:8453',
  amount: '5000000',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payTo: '0x1111111111111111111111111111111111111111',
  maxTimeoutSeconds: 300,
  extra: { name: 'USD Coin', version: '2' },
};
const SOLANA_OPTION: X402PaymentRequirements = {
  scheme: 'exact',
  network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  amount: '5000000',
  asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  payTo: '8qUL23aSj7mDWdoLMXGHFvnVCT9wd7jXcysiekroADEL',
  maxTimeoutSeconds: 300,
  extra: { feePayer: 'BFK9TLC3edb13K6v4YyH3DwPb5DSUpkWvb7XnqCL9b4F' },
};
const terms = (accepts: X402PaymentRequirements[]): X402PaymentTermsReply => ({
  x402Version: 2,
  accepts,
  siwx: {
    domain: 'api.example.test',
    origin: 'https://api.example.test',
    statement: 'Sign in',
    maxAgeMs: 600_000,
    supportedChains: [
      { chainId: 'eip155:8453', type: 'eip191' },
      { chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', type: 'ed25519' },
    ],
  },
});
const now = new Date('2026-04-09T12:00:00.000Z');
const input = { path: '/api/v1/chat/completions', balanceUsdNano: 10_000_000n, minimumUsdNano: 123_456_789n, now, nonce: 'a1b2c3d4e5f60718' };
const decode = (header: string | null) => JSON.parse(Buffer.from(header ?? '', 'base64').toString('utf8')) as unknown;

describe('walletPaymentRequired', () => {
  it("answers the reference's structured body with the balance, the hold, Base's instructions and a challenge", () => {
    const { body } = walletPaymentRequired({ ...input, terms: terms([BASE_OPTION, SOLANA_OPTION]) });
    expect(body).toEqual({
      error: 'Payment required',
      code: 'PAYMENT_REQUIRED',
      reason: 'insufficient_balance',
      message: 'Insufficient x402 balance: this request needs 0.123456789 USD and the wallet has 0.01 USD.',
      currentBalanceUsd: 0.01,
      minimumBalanceUsd: 0.123456789,
      description: 'Inference API',
      suggestedTopUpUsd: 10,
      minimumTopUpUsd: 5,
      supportedTokens: ['USDC'],
      supportedChains: ['base', 'solana'],
      topUpInstructions: {
        step1: expect.stringContaining('POST /api/v1/x402/top-up with no payment header'),
        step2: expect.stringContaining('accepts'),
        step3: expect.stringContaining('PAYMENT-SIGNATURE'),
        receiverWallet: BASE_OPTION.payTo,
        tokenAddress: BASE_OPTION.asset,
        tokenDecimals: 6,
        network: 'eip155:8453',
        minimumAmountUsd: 5,
      },
      siwxChallenge: {
        info: {
          domain: 'api.example.test',
          uri: 'https://api.example.test/api/v1/chat/completions',
          version: '1',
          nonce: 'a1b2c3d4e5f60718',
          issuedAt: '2026-04-09T12:00:00.000Z',
          expirationTime: '2026-04-09T12:10:00.000Z',
          statement: 'Sign in',
        },
        supportedChains: terms([]).siwx.supportedChains,
      },
    });
  });

  it('puts the top-up accepts, with the resource, in PAYMENT-REQUIRED', () => {
    const { paymentRequired } = walletPaymentRequired({ ...input, terms: terms([BASE_OPTION, SOLANA_OPTION]) });
    expect(decode(paymentRequired)).toEqual({
      x402Version: 2,
      resource: { url: 'https://api.example.test/api/v1/chat/completions', description: 'Inference API', mimeType: 'application/json' },
      accepts: [BASE_OPTION, SOLANA_OPTION],
    });
  });

  it("names Solana's rail in the instructions when it is the only one", () => {
    const { body } = walletPaymentRequired({ ...input, terms: terms([SOLANA_OPTION]) });
    expect(body.supportedChains).toEqual(['solana']);
    expect(body.topUpInstructions).toMatchObject({ receiverWallet: SOLANA_OPTION.payTo, tokenAddress: SOLANA_OPTION.asset, network: SOLANA_OPTION.network });
  });

  it('still says payment is required when no rail is configured, with no rail, no header, and why', () => {
    const { body, paymentRequired } = walletPaymentRequired({ ...input, terms: terms([]) });
    expect(paymentRequired).toBeNull();
    expect(body).toMatchObject({ error: 'Payment required', code: 'PAYMENT_REQUIRED', supportedChains: [] });
    expect(body.topUpInstructions).toMatchObject({ receiverWallet: '', tokenAddress: '', network: '' });
    expect(body.message).toMatch(/not available on this server/);
  });
});
