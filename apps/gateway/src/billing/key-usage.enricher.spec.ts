import { ApiKeyView, BILLING } from '@svc/contracts';
import { KeyUsageEnricher } from './key-usage.enricher';
import { fakeRpc } from '@svc/messaging/testing';

const view = (id: string, usd: number | null): ApiKeyView => ({
  id,
  apiKeyType: 'INFERENCE',
  description: id,
  consumptionLimits: { usd, diem: null },
  limitPeriod: 'MONTH',
  modelPrivacy: 'ALL',
  createdAt: null,
  expiresAt: null,
  last6Chars: 'abcdef',
  lastUsedAt: null,
});

describe('KeyUsageEnricher', () => {
  it('adds trailing 7-day usage to every key and the current window only to limited keys, in one billing call', async () => {
    const calls: unknown[] = [];
    const { rpc } = fakeRpc({
      [BILLING.KEY_USAGE]: (body) => {
        calls.push(body);
        return { usage: { k1: { currentPeriod: { usd: '5123400000', diem: '0' }, trailingSevenDays: { usd: '10242400000', diem: '2500000000' } } } };
      },
    });
    const out = await new KeyUsageEnricher(rpc).enrich({ requestId: 'r', accountId: 'a', apiKeyId: 'k1' }, [view('k1', 50), view('k2', null)]);
    expect(calls).toEqual([
      {
        accountId: 'a',
        keys: [
          { id: 'k1', limitPeriod: 'MONTH' },
          { id: 'k2', limitPeriod: 'MONTH' },
        ],
      },
    ]);
    expect(out[0]).toMatchObject({
      usage: { trailingSevenDays: { usd: '10.2424', diem: '2.50', vcu: '2.50' } },
      currentPeriodUsage: { usd: '5.1234', diem: '0.00' },
    });
    expect(out[1]).toMatchObject({ usage: { trailingSevenDays: { usd: '0.00', diem: '0.00', vcu: '0.00' } } });
    expect(out[1]).not.toHaveProperty('currentPeriodUsage');
  });
});
