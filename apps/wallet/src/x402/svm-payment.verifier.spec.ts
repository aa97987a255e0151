import { address } from '@solana/kit';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { DomainError } from '@svc/errors';
import { SOLANA_PAY_TO, solanaPayment, solanaRequirements, solanaTamperedAmount } from '@svc/testing/wallet';
import { SvmPaymentVerifier } from './svm-payment.verifier';
import { decodePaymentHeader } from './x402-payload';

const verifier = new SvmPaymentVerifier();

async function refusal(header: string): Promise<string> {
  try {
    await verifier.verify(decodePaymentHeader(header), solanaRequirements(), 0);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).status).toBe(400);
    return (error as DomainError).details!._errors[0];
  }
  throw new Error('accepted');
}

describe('SvmPaymentVerifier (USDC on Solana, real Ed25519 signatures)', () => {
  it('accepts a TransferChecked of USDC to the pay-to account, signed by the payer, and names it by its signature', async () => {
    const p = await solanaPayment({ usd: 7.5 });
    const verified = await verifier.verify(decodePaymentHeader(p.header), solanaRequirements(), 0);
    expect(verified).toMatchObject({ family: 'solana', payer: p.payer, amountUnits: 7_500_000n, requirements: { amount: '7500000', payTo: SOLANA_PAY_TO } });
    expect(verified.reference).toMatch(new RegExp(`^solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:${p.payer}:[1-9A-HJ-NP-Za-km-z]{64,88}$`));
  });

  it('refuses a tampered amount, and a transaction the payer did not sign', async () => {
    expect(await refusal(await solanaTamperedAmount(10, 100_000_000n))).toBe('invalid_signature');
    expect(await refusal((await solanaPayment({ unsigned: true })).header)).toBe('invalid_signature');
  });

  it('refuses another mint, another receiver, and an amount other than the accepted one', async () => {
    const otherMint = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
    expect(await refusal((await solanaPayment({ mint: otherMint })).header)).toBe('wrong_asset');
    expect(await refusal((await solanaPayment({ accepted: { asset: otherMint } })).header)).toBe('wrong_asset');
    expect(await refusal((await solanaPayment({ payTo: '11111111111111111111111111111112' })).header)).toBe('wrong_pay_to');
    expect(await refusal((await solanaPayment({ usd: 10, transferredUnits: 9_000_000n })).header)).toBe('amount_mismatch');
    expect(await refusal((await solanaPayment({ usd: 1 })).header)).toBe('amount_too_small');
  });

  it('refuses another fee payer, and a second transfer in the same transaction', async () => {
    expect(await refusal((await solanaPayment({ feePayer: '11111111111111111111111111111112' })).header)).toBe('invalid_payload');
    const second = await solanaPayment({
      extra: async (payer) => {
        const any = address('11111111111111111111111111111112');
        return [getTransferCheckedInstruction({ source: any, mint: any, destination: any, authority: address(payer), amount: 1n, decimals: 6 })];
      },
    });
    expect(await refusal(second.header)).toBe('invalid_payload');
  });
});
