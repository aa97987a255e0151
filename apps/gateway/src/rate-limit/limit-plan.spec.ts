import { AuthenticatedKey, KeyRateLimits } from '@svc/contracts';
import { effectiveLimits, limitPlan } from './limit-plan';

const model = (over: Partial<{ id: string; type: 'text' | 'image' | 'tts' | 'embedding' | 'video'; rateLimitTier: 'XS' | 'S' | 'M' | 'L' }> = {}) => ({
  id: 'm',
  type: 'text' as const,
  rateLimitTier: 'XS' as const,
  ...over,
});
const key = (rateLimits?: KeyRateLimits): Pick<AuthenticatedKey, 'id' | 'accountId' | 'rateLimits'> => ({
  id: 'k1',
  accountId: 'a1',
  ...(rateLimits ? { rateLimits } : {}),
});

describe('limit plans', () => {
  it('uses the spec defaults of the model tier and type for the paid tier when the key carries nothing', () => {
    expect(limitPlan(key(), model({ rateLimitTier: 'L' }))).toEqual({
      modelId: 'm',
      limitClass: 'text:L',
      apiTier: 'paid',
      buckets: [{ scope: 'user', id: 'u:a1:m', limits: { rpm: 20, tpm: 500_000, rpd: null } }],
    });
    expect(limitPlan(key(), model({ rateLimitTier: 'S' })).buckets[0].limits).toEqual({ rpm: 75, tpm: 750_000, rpd: null });
    expect(limitPlan(key(), model({ type: 'image' })).buckets[0].limits).toEqual({ rpm: 20, tpm: null, rpd: null });
    expect(limitPlan(key(), model({ type: 'tts' })).buckets[0].limits.rpm).toBe(60);
    expect(limitPlan(key(), model({ type: 'embedding' })).buckets[0].limits.rpm).toBe(500);
    expect(limitPlan(key(), model({ type: 'video' })).buckets[0].limits.rpm).toBe(40);
  });

  it('limits the JSON-RPC proxy in its own class, 100 a minute (the reference), and lets an override target it', () => {
    const rpc = { id: 'svc-crypto-rpc', type: 'augment' as const, limitClass: 'crypto-rpc' as const };
    expect(limitPlan(key(), rpc)).toMatchObject({ limitClass: 'crypto-rpc', buckets: [{ limits: { rpm: 100, tpm: null, rpd: null } }] });
    const capped = key({ apiTier: 'paid', account: [{ target: 'crypto-rpc', rpm: 5, tpm: null, rpd: 1_000 }], key: [] });
    expect(limitPlan(capped, rpc).buckets[0].limits).toEqual({ rpm: 5, tpm: null, rpd: 1_000 });
  });

  it('uses the partner tier defaults', () => {
    const partner = key({ apiTier: 'partner', account: [], key: [] });
    expect(limitPlan(partner, model({ rateLimitTier: 'M' })).buckets[0].limits).toEqual({ rpm: 100, tpm: 1_500_000, rpd: null });
    expect(limitPlan(partner, model({ rateLimitTier: 'XS' })).buckets[0].limits).toEqual({ rpm: 500, tpm: 2_000_000, rpd: null });
    expect(limitPlan(partner, model({ type: 'image' })).buckets[0].limits.rpm).toBe(60);
    expect(limitPlan(partner, model({ type: 'tts' })).buckets[0].limits.rpm).toBe(120);
  });

  it('applies account overrides from least to most specific, field by field', () => {
    const k = key({
      apiTier: 'paid',
      account: [
        { target: 'model:m', rpm: null, tpm: 9, rpd: null },
        { target: '*', rpm: 1000, tpm: 1, rpd: 5 },
        { target: 'text:XS', rpm: 700, tpm: null, rpd: null },
      ],
      key: [],
    });
    expect(limitPlan(k, model()).buckets).toEqual([{ scope: 'user', id: 'u:a1:m', limits: { rpm: 700, tpm: 9, rpd: 5 } }]);
    expect(limitPlan(k, model({ id: 'other' })).buckets[0].limits).toEqual({ rpm: 700, tpm: 1, rpd: 5 });
    expect(limitPlan(k, model({ id: 'img', type: 'image' })).buckets[0].limits).toEqual({ rpm: 1000, tpm: 1, rpd: 5 });
  });

  it('adds a key bucket only for a key with its own limits, first, and a global one when configured, last', () => {
    const k = key({ apiTier: 'paid', account: [], key: [{ target: 'model:m', rpm: 3, tpm: null, rpd: null }] });
    const plan = limitPlan(k, model(), { '*': { rpm: 10_000 }, m: { tpm: 5_000_000 } });
    expect(plan.buckets.map((b) => [b.scope, b.id, b.limits])).toEqual([
      ['api_key', 'k:k1:m', { rpm: 3, tpm: null, rpd: null }],
      ['user', 'u:a1:m', { rpm: 500, tpm: 1_000_000, rpd: null }],
      ['global', 'g:m', { rpm: 10_000, tpm: 5_000_000, rpd: null }],
    ]);
    expect(effectiveLimits(plan)).toEqual({ rpm: 3, tpm: 1_000_000, rpd: null });
    expect(limitPlan(k, model({ id: 'other' })).buckets.map((b) => b.scope)).toEqual(['user']);
  });
});
