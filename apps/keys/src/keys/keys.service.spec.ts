import { createKeyRequestSchema, updateKeyRequestSchema } from '@svc/contracts';
import { hashApiKeySecret } from '@svc/auth';
import { DomainError, ErrorCode } from '@svc/errors';
import { InMemoryKeysRepository } from '../../test/fakes/in-memory-keys.repository';
import { InMemoryRateLimitsRepository } from '../../test/fakes/in-memory-rate-limits.repository';
import { RecordingKeyEvents } from '../../test/fakes/recording-key-events';
import { KeysService, MAX_ACTIVE_KEYS_PER_ACCOUNT, shortensExpiry } from './keys.service';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';

function setup() {
  const repo = new InMemoryKeysRepository();
  repo.accounts.add(ACCOUNT).add(OTHER);
  const events = new RecordingKeyEvents();
  const limits = new InMemoryRateLimitsRepository(repo);
  return { repo, events, limits, service: new KeysService(repo, events, limits) };
}

const createInput = (over: Record<string, unknown> = {}) =>
  createKeyRequestSchema.parse({ accountId: ACCOUNT, apiKeyType: 'INFERENCE', description: 'test', ...over });

async function codeOf(promise: Promise<unknown>): Promise<ErrorCode> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return err.code;
}

describe('KeysService', () => {
  it('returns the new secret once and verifies it by hash', async () => {
    const { service } = setup();
    const created = await service.create(createInput({ consumptionLimits: { usd: 50, diem: null } }));
    expect(created.apiKey).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(created.data.last6Chars).toBe(created.apiKey.slice(-6));
    expect(JSON.stringify(created.data)).not.toContain(hashApiKeySecret(created.apiKey));
    const key = await service.verify(hashApiKeySecret(created.apiKey));
    expect(key).toEqual(
      expect.objectContaining({ id: created.data.id, accountId: ACCOUNT, apiKeyType: 'INFERENCE', consumptionLimits: { usd: 50, diem: null } }),
    );
  });

  it('verifies a key with its account tier and rate-limit overrides, so the gateway needs no extra hop', async () => {
    const { service, limits } = setup();
    const created = await service.create(createInput());
    expect((await service.verify(hashApiKeySecret(created.apiKey)))?.rateLimits).toEqual({ apiTier: 'paid', account: [], key: [] });
    await limits.setTier(ACCOUNT, 'partner');
    await limits.patchAccount(ACCOUNT, 'text:XS', { rpm: 900 });
    await limits.patchKey(created.data.id, '*', { tpm: 1000 });
    expect((await service.verify(hashApiKeySecret(created.apiKey)))?.rateLimits).toEqual({
      apiTier: 'partner',
      account: [{ target: 'text:XS', rpm: 900, tpm: null, rpd: null }],
      key: [{ target: '*', rpm: null, tpm: 1000, rpd: null }],
    });
  });

  it('verifies nothing for an unknown secret', async () => {
    expect(await setup().service.verify(hashApiKeySecret('svc_unknown'))).toBeNull();
  });

  it('still verifies an expired key, with its expiry, for the gateway to reject', async () => {
    const { service, repo } = setup();
    const created = await service.create(createInput());
    const past = new Date(Date.now() - 1000);
    repo.rows.set(created.data.id, { ...repo.rows.get(created.data.id)!, expiresAt: past });
    expect((await service.verify(hashApiKeySecret(created.apiKey)))?.expiresAt).toBe(past.toISOString());
  });

  it('lists only the account’s keys that are not deleted', async () => {
    const { service } = setup();
    const mine = await service.create(createInput());
    const gone = await service.create(createInput());
    await service.create(createInput({ accountId: OTHER }));
    await service.delete(ACCOUNT, gone.data.id);
    expect((await service.list(ACCOUNT)).map((k) => k.id)).toEqual([mine.data.id]);
  });

  it('hides other accounts’ keys, deleted keys and malformed ids as NotFound', async () => {
    const { service } = setup();
    const theirs = await service.create(createInput({ accountId: OTHER }));
    expect(await codeOf(service.get(ACCOUNT, theirs.data.id))).toBe(ErrorCode.NotFound);
    expect(await codeOf(service.get(ACCOUNT, 'not-a-uuid'))).toBe(ErrorCode.NotFound);
    await service.delete(OTHER, theirs.data.id);
    expect(await codeOf(service.get(OTHER, theirs.data.id))).toBe(ErrorCode.NotFound);
    expect(await codeOf(service.delete(ACCOUNT, theirs.data.id))).toBe(ErrorCode.NotFound);
  });

  it('refuses keys for an account that does not exist', async () => {
    expect(await codeOf(setup().service.create(createInput({ accountId: '33333333-3333-4333-8333-333333333333' })))).toBe(ErrorCode.NotFound);
  });

  it(`caps active keys at ${MAX_ACTIVE_KEYS_PER_ACCOUNT}, counting deleted ones out`, async () => {
    const { service } = setup();
    const first = await service.create(createInput());
    for (let i = 1; i < MAX_ACTIVE_KEYS_PER_ACCOUNT; i++) await service.create(createInput());
    expect(await codeOf(service.create(createInput()))).toBe(ErrorCode.Validation);
    await service.delete(ACCOUNT, first.data.id);
    await expect(service.create(createInput())).resolves.toHaveProperty('apiKey');
  });

  it('revokes the key on delete and says so to gateways, once', async () => {
    const { service, events } = setup();
    const created = await service.create(createInput());
    await service.delete(ACCOUNT, created.data.id);
    expect(await service.verify(hashApiKeySecret(created.apiKey))).toBeNull();
    expect(events.revokedIds).toEqual([[created.data.id]]);
    expect(await codeOf(service.delete(ACCOUNT, created.data.id))).toBe(ErrorCode.NotFound);
    expect(events.revokedIds).toHaveLength(1);
  });

  it('updates only the given fields', async () => {
    const { service } = setup();
    const created = await service.create(createInput({ consumptionLimits: { usd: 5, diem: 7 }, modelPrivacy: 'PRIVATE_ONLY' }));
    const updated = await service.update(
      updateKeyRequestSchema.parse({ accountId: ACCOUNT, id: created.data.id, description: 'renamed', consumptionLimits: { usd: null } }),
    );
    expect(updated).toEqual(
      expect.objectContaining({ description: 'renamed', consumptionLimits: { usd: null, diem: 7 }, modelPrivacy: 'PRIVATE_ONLY', limitPeriod: 'EPOCH' }),
    );
  });

  it('tells gateways when an update brings expiry earlier, not when it extends it', async () => {
    const { service, events } = setup();
    const created = await service.create(createInput({ expiresAt: '2031-01-01' }));
    const update = (expiresAt: string | null) => service.update(updateKeyRequestSchema.parse({ accountId: ACCOUNT, id: created.data.id, expiresAt }));
    await update('2032-01-01');
    await update(null);
    expect(events.revokedIds).toEqual([]);
    await update('2030-06-01');
    expect(events.revokedIds).toEqual([[created.data.id]]);
  });

  it('tells gateways when an update changes the consumption limits, not when it renames the key', async () => {
    const { service, events } = setup();
    const created = await service.create(createInput({ consumptionLimits: { usd: 5, diem: null } }));
    const update = (patch: Record<string, unknown>) => service.update(updateKeyRequestSchema.parse({ accountId: ACCOUNT, id: created.data.id, ...patch }));
    await update({ description: 'renamed' });
    await update({ consumptionLimits: { usd: 5 } });
    expect(events.revokedIds).toEqual([]);
    await update({ consumptionLimits: { usd: 1 } });
    await update({ limitPeriod: 'MONTH' });
    expect(events.revokedIds).toEqual([[created.data.id], [created.data.id]]);
  });
});

describe('shortensExpiry', () => {
  const d = (s: string) => new Date(s);
  it.each([
    [null, d('2030-01-01'), true],
    [d('2031-01-01'), d('2030-01-01'), true],
    [d('2030-01-01'), d('2031-01-01'), false],
    [d('2030-01-01'), null, false],
    [null, null, false],
  ])('%s -> %s is %s', (before, after, expected) => {
    expect(shortensExpiry(before, after)).toBe(expected);
  });
});
