import { DomainError } from '@svc/errors';
import { BASE_PAY_TO, baseRequirements, evmPayment, tampered } from '@svc/testing/wallet';
import { EvmPaymentVerifier } from './evm-payment.verifier';
import { decodePaymentHeader } from './x402-payload';

const verifier = new EvmPaymentVerifier();
const now = () => Math.floor(Date.now() / 1000);

async function refusal(header: string, at = now()): Promise<string> {
  try {
    await verifier.verify(decodePaymentHeader(header), baseRequirements(), at);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).status).toBe(400);
    return (error as DomainError).details!._errors[0];
  }
  throw new Error('accepted');
}

describe('EvmPaymentVerifier (EIP-3009 on Base, real signatures)', () => {
  it('accepts a signed TransferWithAuthorization and names the payment by network, payer and nonce', async () => {
    const p = await evmPayment({ usd: 12.5 });
    const verified = await verifier.verify(decodePaymentHeader(p.header), baseRequirements(), now());
    expect(verified).toMatchObject({ family: 'evm', payer: p.payer, amountUnits: 12_500_000n });
    expect(verified.reference).toBe(`eip155:8453:${p.payer.toLowerCase()}:${p.nonce}`);
    expect(verified.requirements).toMatchObject({ amount: '12500000', payTo: BASE_PAY_TO });
  });

  it('refuses a tampered amount (signed 10, claims 100)', async () => {
    const p = await evmPayment({ usd: 10 });
    const header = tampered(p, (payload) => {
      payload.accepted.amount = '100000000';
      payload.payload.authorization.value = '100000000';
    });
    expect(await refusal(header)).toBe('invalid_signature');
  });

  it('refuses a signed value that differs from the accepted amount', async () => {
    expect(await refusal((await evmPayment({ usd: 10, signedUnits: 9_000_000n })).header)).toBe('amount_mismatch');
  });

  it('refuses a signature by someone else than `from`', async () => {
    const p = await evmPayment();
    const other = await evmPayment();
    const header = tampered(p, (payload) => {
      payload.payload.authorization.from = other.payer;
    });
    expect(await refusal(header)).toBe('invalid_signature');
  });

  it('refuses a signature for another chain or token contract', async () => {
    expect(await refusal((await evmPayment({ chainId: 1 })).header)).toBe('invalid_signature');
    expect(await refusal((await evmPayment({ verifyingContract: '0x2222222222222222222222222222222222222222' })).header)).toBe('invalid_signature');
  });

  it('refuses the wrong asset and the wrong pay-to', async () => {
    expect(await refusal((await evmPayment({ accepted: { asset: '0x2222222222222222222222222222222222222222' } })).header)).toBe('wrong_asset');
    expect(await refusal((await evmPayment({ accepted: { payTo: '0x3333333333333333333333333333333333333333' } })).header)).toBe('wrong_pay_to');
    expect(await refusal((await evmPayment({ to: '0x3333333333333333333333333333333333333333' })).header)).toBe('wrong_pay_to');
  });

  it('refuses less than 5 USD and more than 10,000 USD', async () => {
    expect(await refusal((await evmPayment({ usd: 4.99 })).header)).toBe('amount_too_small');
    expect(await refusal((await evmPayment({ usd: 10_001 })).header)).toBe('amount_too_large');
  });

  it('refuses an expired authorization and one not valid yet', async () => {
    expect(await refusal((await evmPayment({ validBefore: now() - 1 })).header)).toBe('expired');
    expect(await refusal((await evmPayment({ validAfter: now() + 120 })).header)).toBe('not_yet_valid');
  });

  it('refuses a scheme other than exact', async () => {
    expect(await refusal((await evmPayment({ accepted: { scheme: 'upto' as 'exact' } })).header)).toBe('unsupported_scheme');
  });
});

describe('decodePaymentHeader', () => {
  it('refuses what is not a base64 x402 v2 payload', () => {
    expect(() => decodePaymentHeader('%%%')).toThrow(/base64/);
    expect(() => decodePaymentHeader(Buffer.from(JSON.stringify({ x402Version: 1 })).toString('base64'))).toThrow(/version 2/);
    expect(() => decodePaymentHeader(Buffer.from(JSON.stringify({ x402Version: 2 })).toString('base64'))).toThrow(/malformed/);
  });
});
