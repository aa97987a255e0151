import { UsageAnalyticsReply } from '@svc/contracts';
import { withKeyNames } from './usage-key-names';
import { usageCsv } from './usage-csv';

describe('usage analytics keys', () => {
  it('names keys by description, marks deleted ones and keeps chart series apart', () => {
    const reply: UsageAnalyticsReply = {
      lookback: '7d',
      byDate: [],
      byModel: [],
      byModelDaily: [],
      topModels: [],
      byKey: [
        { apiKeyId: 'k1', totalUsd: 2, totalDiem: 0, totalUnits: 10 },
        { apiKeyId: 'k2', totalUsd: 1, totalDiem: 0, totalUnits: 5 },
        { apiKeyId: 'deadbeef-0000', totalUsd: 0.5, totalDiem: 0, totalUnits: 1 },
      ],
      byKeyDaily: [{ date: 1, k1: 2, k2: 1, 'deadbeef-0000': 0.5 }],
      topKeyIds: ['k1', 'k2', 'deadbeef-0000'],
    };
    const named = withKeyNames(
      reply,
      new Map([
        ['k1', 'Prod'],
        ['k2', 'Prod'],
      ]),
    );
    expect(named.byKey.map((k) => k.description)).toEqual(['Prod', 'Prod (k2)', 'Deleted key deadbeef']);
    expect(named.topKeyNames).toEqual(['Prod', 'Prod (k2)', 'Deleted key deadbeef']);
    expect(named.byKeyDaily).toEqual([{ date: 1, Prod: 2, 'Prod (k2)': 1, 'Deleted key deadbeef': 0.5 }]);
    expect(named).not.toHaveProperty('topKeyIds');
  });
});

describe('usage history CSV', () => {
  it('writes a header and one quoted-as-needed row per entry', () => {
    const csv = usageCsv([
      {
        amount: -0.0000002,
        currency: 'USD',
        inferenceDetails: { completionTokens: 5, inferenceExecutionTime: 12, promptTokens: 10, requestId: 'req,1' },
        notes: 'API Inference',
        pricePerUnitUsd: 0.02,
        sku: 'tiny-llm-output-mtoken',
        timestamp: '2026-11-22T10:00:00.000Z',
        units: 0.000005,
      },
    ]);
    expect(csv).toBe(
      'timestamp,sku,units,pricePerUnitUsd,amount,currency,notes,requestId,promptTokens,completionTokens,inferenceExecutionTime\r\n' +
        '2026-11-22T10:00:00.000Z,tiny-llm-output-mtoken,0.000005,0.02,-0.0000002,USD,API Inference,"req,1",10,5,12\r\n',
    );
  });
});
