import { createKeySchema, updateKeySchema, verifyKeySchema } from './keys.schemas';

const base = { accountId: '11111111-1111-4111-8111-111111111111', apiKeyType: 'ADMIN', description: 'ok' };

describe('createKeySchema', () => {
  it('fills the documented defaults', () => {
    expect(createKeySchema.parse(base)).toEqual({ ...base, expiresAt: null, consumptionLimits: { usd: null, diem: null }, limitPeriod: 'EPOCH', modelPrivacy: 'ALL' });
  });

  it('limits descriptions to 64 characters', () => {
    expect(createKeySchema.safeParse({ ...base, description: 'x'.repeat(64) }).success).toBe(true);
    expect(createKeySchema.safeParse({ ...base, description: 'x'.repeat(65) }).success).toBe(false);
  });

  it('accepts the public API’s expiry forms and treats "" as no expiry', () => {
    expect(createKeySchema.parse({ ...base, expiresAt: '2030-05-01' }).expiresAt?.toISOString()).toBe('2030-05-01T00:00:00.000Z');
    expect(createKeySchema.parse({ ...base, expiresAt: '2030-05-01T10:00:00.000Z' }).expiresAt?.toISOString()).toBe('2030-05-01T10:00:00.000Z');
    expect(createKeySchema.parse({ ...base, expiresAt: '' }).expiresAt).toBeNull();
  });

  it('rejects expiry in the past and malformed dates', () => {
    expect(createKeySchema.safeParse({ ...base, expiresAt: '2001-01-01' }).success).toBe(false);
    expect(createKeySchema.safeParse({ ...base, expiresAt: 'tomorrow' }).success).toBe(false);
  });

  it('bounds consumption limits like the public API', () => {
    expect(createKeySchema.safeParse({ ...base, consumptionLimits: { usd: -1, diem: null } }).success).toBe(false);
    expect(createKeySchema.safeParse({ ...base, consumptionLimits: { usd: 10_000_000_000, diem: null } }).success).toBe(false);
    expect(createKeySchema.parse({ ...base, consumptionLimits: { usd: 12.5 } }).consumptionLimits).toEqual({ usd: 12.5, diem: null });
  });

  it('rejects unknown key types and non-UUID accounts', () => {
    expect(createKeySchema.safeParse({ ...base, apiKeyType: 'ROOT' }).success).toBe(false);
    expect(createKeySchema.safeParse({ ...base, accountId: 'acme' }).success).toBe(false);
  });
});

describe('updateKeySchema', () => {
  it('leaves omitted fields undefined and lets null clear the expiry', () => {
    const parsed = updateKeySchema.parse({ accountId: base.accountId, id: 'k', expiresAt: null });
    expect(parsed.expiresAt).toBeNull();
    expect(parsed.description).toBeUndefined();
    expect(parsed.consumptionLimits).toBeUndefined();
  });
});

describe('verifyKeySchema', () => {
  it('accepts only a lowercase hex SHA-256', () => {
    expect(verifyKeySchema.safeParse({ secretHash: 'a'.repeat(64) }).success).toBe(true);
    expect(verifyKeySchema.safeParse({ secretHash: 'A'.repeat(64) }).success).toBe(false);
    expect(verifyKeySchema.safeParse({ secretHash: 'svc_plain_secret' }).success).toBe(false);
  });
});
