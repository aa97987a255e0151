import { DomainError, ErrorCode } from '@svc/errors';
import { InMemoryKeysRepository } from '../../test/fakes/in-memory-keys.repository';
import { InMemoryRateLimitsRepository } from '../../test/fakes/in-memory-rate-limits.repository';
import { RecordingKeyEvents } from '../../test/fakes/recording-key-events';
import { applyPatch } from './rate-limits.repository';
import { clearLimitsSchema, setLimitsSchema } from './rate-limits.schemas';
import { RateLimitsService } from './rate-limits.service';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const MISSING = '99999999-9999-4999-8999-999999999999';

async function setup() {
  const keys = new InMemoryKeysRepository();
  keys.accounts.add(ACCOUNT);
  const limits = new InMemoryRateLimitsRepository(keys);
  const events = new RecordingKeyEvents();
  const newKey = async () => {
    const result = await keys.create(
      {
        accountId: ACCOUNT,
        type: 'INFERENCE',
        description: '',
        secretHash: 'h'.repeat(64),
        last6: 'abcdef',
        expiresAt: null,
        limitUsd: null,
        limitDiem: null,
        limitPeriod: 'EPOCH',
        modelPrivacy: 'ALL',
      },
      500,
    );
    if (result.status !== 'created') throw new Error(result.status);
    return result.key.id;
  };
  return { keys, limits, events, newKey, service: new RateLimitsService(limits, keys, events) };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: unknown) => (e instanceof DomainError ? e.code : e),
  );

describe('RateLimitsService', () => {
  it('sets account overrides field by field, and tells gateways to re-verify every key of the account', async () => {
    const { service, events, newKey } = await setup();
    const [k1, k2] = [await newKey(), await newKey()];
    const first = await service.set(setLimitsSchema.parse({ accountId: ACCOUNT, target: 'text:XS', rpm: '900' }));
    expect(first).toEqual({ accountId: ACCOUNT, override: { target: 'text:XS', rpm: 900, tpm: null, rpd: null }, keysRefreshed: 2 });
    const second = await service.set(setLimitsSchema.parse({ accountId: ACCOUNT, target: 'text:XS', tpm: '5000' }));
    expect(second.override).toEqual({ target: 'text:XS', rpm: 900, tpm: 5000, rpd: null });
    expect(events.revokedIds).toEqual([
      [k1, k2],
      [k1, k2],
    ]);
    const cleared = await service.set(setLimitsSchema.parse({ accountId: ACCOUNT, target: 'text:XS', rpm: 'inherit', tpm: 'inherit' }));
    expect(cleared.override).toBeNull();
    expect((await service.show(ACCOUNT)).account).toEqual([]);
  });

  it('sets a key’s own limits and refreshes only that key', async () => {
    const { service, events, newKey } = await setup();
    const key = await newKey();
    await newKey();
    expect(await service.set(setLimitsSchema.parse({ keyId: key, rpd: '100' }))).toEqual({
      keyId: key,
      override: { target: '*', rpm: null, tpm: null, rpd: 100 },
      keysRefreshed: 1,
    });
    expect(events.revokedIds).toEqual([[key]]);
    expect((await service.show(ACCOUNT)).keys).toEqual([{ keyId: key, overrides: [{ target: '*', rpm: null, tpm: null, rpd: 100 }] }]);
    expect(await service.clear(clearLimitsSchema.parse({ keyId: key }))).toEqual({ keyId: key, removed: 1, keysRefreshed: 1 });
  });

  it('sets the tier', async () => {
    const { service } = await setup();
    expect(await service.setTier(ACCOUNT, 'partner')).toEqual({ accountId: ACCOUNT, apiTier: 'partner', keysRefreshed: 0 });
    expect((await service.show(ACCOUNT)).apiTier).toBe('partner');
  });

  it('answers NotFound for accounts and keys that do not exist', async () => {
    const { service } = await setup();
    expect(await codeOf(service.show(MISSING))).toBe(ErrorCode.NotFound);
    expect(await codeOf(service.setTier(MISSING, 'paid'))).toBe(ErrorCode.NotFound);
    expect(await codeOf(service.set(setLimitsSchema.parse({ accountId: MISSING, rpm: '5' })))).toBe(ErrorCode.NotFound);
    expect(await codeOf(service.set(setLimitsSchema.parse({ keyId: MISSING, rpm: '5' })))).toBe(ErrorCode.NotFound);
    expect(await codeOf(service.clear(clearLimitsSchema.parse({ keyId: MISSING })))).toBe(ErrorCode.NotFound);
  });
});

describe('rate-limit inputs', () => {
  it('accept targets, positive integers and inherit; refuse the rest', () => {
    expect(setLimitsSchema.parse({ accountId: ACCOUNT, target: 'model:svc-tiny-random', rpm: '10', tpm: 'inherit' })).toEqual({
      accountId: ACCOUNT,
      target: 'model:svc-tiny-random',
      rpm: 10,
      tpm: null,
    });
    expect(setLimitsSchema.safeParse({ accountId: ACCOUNT, target: 'text:XXL', rpm: '1' }).success).toBe(false);
    expect(setLimitsSchema.safeParse({ accountId: ACCOUNT, rpm: '0' }).success).toBe(false);
    expect(setLimitsSchema.safeParse({ accountId: ACCOUNT, rpm: '1.5' }).success).toBe(false);
    expect(setLimitsSchema.safeParse({ accountId: ACCOUNT }).success).toBe(false);
    expect(setLimitsSchema.safeParse({ accountId: ACCOUNT, keyId: ACCOUNT, rpm: '1' }).success).toBe(false);
    expect(setLimitsSchema.safeParse({ rpm: '1' }).success).toBe(false);
  });

  it('patch: undefined keeps, null clears, nothing left removes', () => {
    const before = { target: '*' as const, rpm: 1, tpm: 2, rpd: null };
    expect(applyPatch('*', before, { tpm: undefined, rpd: 3 })).toEqual({ target: '*', rpm: 1, tpm: 2, rpd: 3 });
    expect(applyPatch('*', before, { rpm: null, tpm: null })).toBeNull();
    expect(applyPatch('image', null, { rpm: 4 })).toEqual({ target: 'image', rpm: 4, tpm: null, rpd: null });
  });
});
