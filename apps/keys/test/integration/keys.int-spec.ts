import { hashApiKeySecret } from '@svc/auth';
import { CreateKeyRequest, KEYS, KeysRevokedEvent } from '@svc/contracts';
import { ErrorCode } from '@svc/errors';
import { decodeJson, NestEventPacket } from '@svc/messaging';
import { createKeysHarness, eventually, KeysHarness } from './support/keys-harness';

let h: KeysHarness;
const revoked: KeysRevokedEvent[] = [];

beforeAll(async () => {
  h = await createKeysHarness();
  await h.start();
  // As the gateway does: a plain subscription, no queue group.
  h.nc.subscribe(KEYS.REVOKED, { callback: (_err, msg) => revoked.push(decodeJson<NestEventPacket<KeysRevokedEvent>>(msg.data).data) });
});
afterAll(() => h?.stop());

async function newAccount(name = 'acme'): Promise<string> {
  return (await h.rpc.send(KEYS.CREATE_ACCOUNT, { name })).accountId;
}

function keyRequest(accountId: string, over: Partial<CreateKeyRequest> = {}): CreateKeyRequest {
  return {
    accountId,
    apiKeyType: 'INFERENCE',
    description: 'integration',
    expiresAt: null,
    consumptionLimits: { usd: null, diem: null },
    limitPeriod: 'EPOCH',
    modelPrivacy: 'ALL',
    ...over,
  };
}

const verify = (secret: string) => h.rpc.send(KEYS.VERIFY, { secretHash: hashApiKeySecret(secret) });

describe('keys service over NATS', () => {
  it('answers health with a working database', async () => {
    expect(await h.rpc.send('keys.cmd.health.v1', {})).toEqual(expect.objectContaining({ service: 'keys', status: 'ok', checks: { database: 'ok' } }));
  });

  it('creates a key whose secret verifies, lists and reads it back', async () => {
    const accountId = await newAccount();
    const created = await h.rpc.send(
      KEYS.CREATE,
      keyRequest(accountId, { apiKeyType: 'ADMIN', expiresAt: '2030-01-01T00:00:00.000Z', consumptionLimits: { usd: 12.5, diem: null }, limitPeriod: 'MONTH' }),
    );
    expect(created.apiKey).toMatch(/^svc_/);
    expect(created.data).toEqual(
      expect.objectContaining({
        apiKeyType: 'ADMIN',
        description: 'integration',
        expiresAt: '2030-01-01T00:00:00.000Z',
        consumptionLimits: { usd: 12.5, diem: null },
        limitPeriod: 'MONTH',
        modelPrivacy: 'ALL',
        last6Chars: created.apiKey.slice(-6),
        lastUsedAt: null,
      }),
    );
    expect((await verify(created.apiKey)).key).toEqual(
      expect.objectContaining({ id: created.data.id, accountId, apiKeyType: 'ADMIN', expiresAt: '2030-01-01T00:00:00.000Z' }),
    );
    expect((await h.rpc.send(KEYS.LIST, { accountId })).data).toEqual([created.data]);
    expect((await h.rpc.send(KEYS.GET, { accountId, id: created.data.id })).data).toEqual(created.data);
  });

  it('verifies nothing for an unknown secret', async () => {
    expect((await verify('svc_never_issued_secret')).key).toBeNull();
  });

  it('answers 404 for another account’s key, whatever the operation', async () => {
    const owner = await newAccount('owner');
    const intruder = await newAccount('intruder');
    const { data } = await h.rpc.send(KEYS.CREATE, keyRequest(owner));
    const notFound = { code: ErrorCode.NotFound };
    await expect(h.rpc.send(KEYS.GET, { accountId: intruder, id: data.id })).rejects.toMatchObject(notFound);
    await expect(h.rpc.send(KEYS.UPDATE, { accountId: intruder, id: data.id, description: 'mine now' })).rejects.toMatchObject(notFound);
    await expect(h.rpc.send(KEYS.DELETE, { accountId: intruder, id: data.id })).rejects.toMatchObject(notFound);
    expect((await h.rpc.send(KEYS.LIST, { accountId: intruder })).data).toEqual([]);
    expect((await h.rpc.send(KEYS.GET, { accountId: owner, id: data.id })).data.description).toBe('integration');
  });

  it('rejects invalid requests with field details', async () => {
    const accountId = await newAccount();
    const err = await h.rpc.send(KEYS.CREATE, keyRequest(accountId, { description: 'x'.repeat(65) })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.Validation, details: { description: { _errors: [expect.stringMatching(/64/)] } } });
  });

  it('updates fields and persists them', async () => {
    const accountId = await newAccount();
    const { data } = await h.rpc.send(KEYS.CREATE, keyRequest(accountId));
    const updated = await h.rpc.send(KEYS.UPDATE, {
      accountId,
      id: data.id,
      description: 'renamed',
      consumptionLimits: { usd: 5, diem: 2 },
      limitPeriod: 'LIFETIME',
      modelPrivacy: 'PRIVATE_ONLY',
      expiresAt: '2031-02-03T04:05:06.000Z',
    });
    expect(updated.data).toEqual(
      expect.objectContaining({
        description: 'renamed',
        consumptionLimits: { usd: 5, diem: 2 },
        limitPeriod: 'LIFETIME',
        modelPrivacy: 'PRIVATE_ONLY',
        expiresAt: '2031-02-03T04:05:06.000Z',
      }),
    );
    expect((await h.rpc.send(KEYS.GET, { accountId, id: data.id })).data).toEqual(updated.data);
  });

  it('soft-deletes: the secret stops verifying, the key disappears, gateways are told', async () => {
    const accountId = await newAccount();
    const created = await h.rpc.send(KEYS.CREATE, keyRequest(accountId));
    expect(await h.rpc.send(KEYS.DELETE, { accountId, id: created.data.id })).toEqual({ success: true });
    expect((await verify(created.apiKey)).key).toBeNull();
    await expect(h.rpc.send(KEYS.GET, { accountId, id: created.data.id })).rejects.toMatchObject({ code: ErrorCode.NotFound });
    expect((await h.rpc.send(KEYS.LIST, { accountId })).data).toEqual([]);
    await eventually(async () => (revoked.some((e) => e.ids.includes(created.data.id)) ? true : undefined));
    const { rows } = await h.sql.query('SELECT deleted_at FROM api_keys WHERE id = $1', [created.data.id]);
    expect(rows[0].deleted_at).toBeInstanceOf(Date);
  });

  it('tells gateways when an update brings expiry earlier', async () => {
    const accountId = await newAccount();
    const { data } = await h.rpc.send(KEYS.CREATE, keyRequest(accountId, { expiresAt: '2031-01-01T00:00:00.000Z' }));
    await h.rpc.send(KEYS.UPDATE, { accountId, id: data.id, expiresAt: '2032-01-01T00:00:00.000Z' });
    await h.rpc.send(KEYS.UPDATE, { accountId, id: data.id, expiresAt: '2030-01-01T00:00:00.000Z' });
    await eventually(async () => (revoked.some((e) => e.ids.includes(data.id)) ? true : undefined));
    expect(revoked.filter((e) => e.ids.includes(data.id))).toHaveLength(1);
  });

  it('records lastUsedAt from KEYS.USED, only ever moving it forward', async () => {
    const accountId = await newAccount();
    const { data } = await h.rpc.send(KEYS.CREATE, keyRequest(accountId));
    const lastUsed = async () => (await h.rpc.send(KEYS.GET, { accountId, id: data.id })).data.lastUsedAt;
    h.rpc.emit(KEYS.USED, { uses: [{ id: data.id, at: '2026-01-02T00:00:00.000Z' }] });
    expect(await eventually(async () => (await lastUsed()) ?? undefined)).toBe('2026-01-02T00:00:00.000Z');
    // An older use reported later (another gateway, a slow batch) must not move it back.
    h.rpc.emit(KEYS.USED, { uses: [{ id: data.id, at: '2026-01-01T00:00:00.000Z' }] });
    await new Promise((r) => setTimeout(r, 300));
    expect(await lastUsed()).toBe('2026-01-02T00:00:00.000Z');
    h.rpc.emit(KEYS.USED, { uses: [{ id: data.id, at: '2026-01-03T00:00:00.000Z' }] });
    expect(await eventually(async () => ((await lastUsed()) === '2026-01-03T00:00:00.000Z' ? true : undefined))).toBe(true);
  });
});
