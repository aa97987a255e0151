import { createKeyRequestSchema, updateKeyRequestSchema, verifyKeyRequestSchema } from '@svc/contracts';

const base = { accountId: '11111111-1111-4111-8111-111111111111', apiKeyType: 'ADMIN', description: 'ok' };

describe('createKeyRequestSchema', () => {
  it('fills the documented defaults', () => {
    expect(createKeyRequestSchema.parse(base)).toEqual({
      ...base,
      expiresAt: null,
      consumptionLimits: { usd: null, diem: null },
      limitPeriod: 'EPOCH',
      modelPrivacy: 'ALL',
    });
  });

  it('limits descriptions to 64 characters', () => {
    expect(createKeyRequestSchema.safeParse({ ...base, description: 'x'.repeat(64) }).success).toBe(true);
    expect(createKeyRequestSchema.safeParse({ ...base, description: 'x'.repeat(65) }).success).toBe(false);
  });

  it('accepts the public API’s expiry forms and treats "" as no expiry', () => {
    expect(createKeyRequestSchema.parse({ ...base, expiresAt: '2030-05-01' }).expiresAt?.toISOString()).toBe('2030-05-01T00:00:00.000Z');
    expect(createKeyRequestSchema.parse({ ...base, expiresAt: '2030-05-01T10:00:00.000Z' }).expiresAt?.toISOString()).toBe('2030-05-01T10:00:00.000Z');
    expect(createKeyRequestSchema.parse({ ...base, expiresAt: '' }).expiresAt).toBeNull();
  });

  it('rejects expiry in the past and malformed dates', () => {
    expect(createKeyRequestSchema.safeParse({ ...base, expiresAt: '2001-01-01' }).success).toBe(false);
    expect(createKeyRequestSchema.safeParse({ ...base, expiresAt: 'tomorrow' }).success).toBe(false);
  });

  it('takes exactly the forms the gateway takes (one rule in @svc/contracts): an offset other than Z is refused', () => {
    expect(createKeyRequestSchema.safeParse({ ...base, expiresAt: '2030-05-01T10:00:00+02:00' }).success).toBe(false);
    expect(createKeyRequestSchema.safeParse({ ...base, expiresAt: '2030-05-01T10:00:00Z' }).success).toBe(true);
  });

  it('bounds consumption limits like the public API', () => {
    expect(createKeyRequestSchema.safeParse({ ...base, consumptionLimits: { usd: -1, diem: null } }).success).toBe(false);
    expect(createKeyRequestSchema.safeParse({ ...base, consumptionLimits: { usd: 10_000_000_000, diem: null } }).success).toBe(false);
    expect(createKeyRequestSchema.parse({ ...base, consumptionLimits: { usd: 12.5 } }).consumptionLimits).toEqual({ usd: 12.5, diem: null });
  });

  it('rejects unknown key types and non-UUID accounts', () => {
    expect(createKeyRequestSchema.safeParse({ ...base, apiKeyType: 'ROOT' }).success).toBe(false);
    expect(createKeyRequestSchema.safeParse({ ...base, accountId: 'acme' }).success).toBe(false);
  });
});

describe('updateKeyRequestSchema', () => {
  it('leaves omitted fields undefined and lets null clear the expiry', () => {
    const parsed = updateKeyRequestSchema.parse({ accountId: base.accountId, id: 'k', expiresAt: null });
    expect(parsed.expiresAt).toBeNull();
    expect(parsed.description).toBeUndefined();
    expect(parsed.consumptionLimits).toBeUndefined();
  });
});

describe('verifyKeyRequestSchema', () => {
  it('accepts only a lowercase hex SHA-256', () => {
    expect(verifyKeyRequestSchema.safeParse({ secretHash: 'a'.repeat(64) }).success).toBe(true);
    expect(verifyKeyRequestSchema.safeParse({ secretHash: 'A'.repeat(64) }).success).toBe(false);
    expect(verifyKeyRequestSchema.safeParse({ secretHash: 'svc_plain_secret' }).success).toBe(false);
  });
});
