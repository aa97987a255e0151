import { refusalMessage } from './insufficient-credits';
import { ReserveResult } from './reservation.records';

const result = (over: Partial<ReserveResult>): ReserveResult => ({
  outcome: 'insufficient',
  currency: null,
  held: 0n,
  available: { usd: 50_000n, diem: 0n },
  keyUsed: { usd: 0n, diem: 0n },
  order: 'DIEM_FIRST',
  diemStake: 0n,
  ...over,
});

describe('refusalMessage', () => {
  it('states the worst-case cost and what the account has', () => {
    const message = refusalMessage(result({}), {
      cost: { usd: 123_000n, diem: 123_000n },
      limits: { usd: null, diem: null, period: 'EPOCH' },
      order: ['DIEM', 'USD'],
    });
    expect(message).toBe(
      'Insufficient balance: this request may cost up to 0.000123 DIEM or 0.000123 USD, and the account has 0.00 DIEM and 0.00005 USD available. Add credits, or send a smaller max_tokens.',
    );
  });

  it('names the key limit, its window and the amount used when the limit is what refuses', () => {
    const message = refusalMessage(result({ outcome: 'key-limit', keyUsed: { usd: 4_999_000_000n, diem: 0n } }), {
      cost: { usd: 2_000_000n, diem: 2_000_000n },
      limits: { usd: 5_000_000_000n, diem: null, period: 'MONTH' },
      order: ['USD'],
    });
    expect(message).toMatch(/^This API key's USD consumption limit of 5.00 USD per month \(UTC\) does not cover this request: 4.999 USD is used or reserved/);
    expect(message).toMatch(/may cost up to 0.002 USD/);
  });
});
