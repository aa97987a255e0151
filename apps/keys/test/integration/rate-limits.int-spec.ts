import { hashApiKeySecret } from '@svc/auth';
import { CreateKeyRequest, KEYS, KeysRevokedEvent } from '@svc/contracts';
import { decodeJson, NestEventPacket } from '@svc/messaging';
import { createKeysPrisma, KeysPrisma } from '../../src/database/keys-prisma';
import { NatsKeyEvents } from '../../src/keys/key-events';
import { PrismaKeysRepository } from '../../src/keys/prisma-keys.repository';
import { PrismaRateLimitsRepository } from '../../src/rate-limits/prisma-rate-limits.repository';
import { setLimitsSchema } from '../../src/rate-limits/rate-limits.schemas';
import { RateLimitsService } from '../../src/rate-limits/rate-limits.service';
import { createKeysHarness, eventually, KeysHarness } from './support/keys-harness';

let h: KeysHarness;
let prisma: KeysPrisma;
let repo: PrismaRateLimitsRepository;
const revoked: KeysRevokedEvent[] = [];

beforeAll(async () => {
  h = await createKeysHarness('keysrl');
  await h.start();
  prisma = createKeysPrisma(h.db.url, 2);
  repo = new PrismaRateLimitsRepository(prisma);
  h.nc.subscribe(KEYS.REVOKED, { callback: (_err, msg) => revoked.push(decodeJson<NestEventPacket<KeysRevokedEvent>>(msg.data).data) });
});
afterAll(async () => {
  await prisma?.$disconnect();
  await h?.stop();
});

const keyRequest = (accountId: string): CreateKeyRequest => ({
  accountId,
  apiKeyType: 'INFERENCE',
  description: 'limits',
  expiresAt: null,
  consumptionLimits: { usd: null, diem: null },
  limitPeriod: 'EPOCH',
  modelPrivacy: 'ALL',
});

async function accountWithKey() {
  const { accountId } = await h.rpc.send(KEYS.CREATE_ACCOUNT, { name: 'limits' });
  const created = await h.rpc.send(KEYS.CREATE, keyRequest(accountId));
  return { accountId, keyId: created.data.id, secret: created.apiKey };
}

const verify = async (secret: string) => (await h.rpc.send(KEYS.VERIFY, { secretHash: hashApiKeySecret(secret) })).key;

describe('rate-limit overrides in svc_keys', () => {
  it('VERIFY carries the account tier and the overrides of the account and of the key', async () => {
    const { accountId, keyId, secret } = await accountWithKey();
    expect((await verify(secret))?.rateLimits).toEqual({ apiTier: 'paid', account: [], key: [] });

    expect(await repo.setTier(accountId, 'partner')).toBe(true);
    expect(await repo.patchAccount(accountId, 'text:L', { rpm: 120, tpm: 2_000_000 })).toEqual({ target: 'text:L', rpm: 120, tpm: 2_000_000, rpd: null });
    expect(await repo.patchAccount(accountId, '*', { rpd: 10_000 })).toEqual({ target: '*', rpm: null, tpm: null, rpd: 10_000 });
    expect(await repo.patchKey(keyId, 'model:svc-tiny-random', { rpm: 5 })).toEqual({ target: 'model:svc-tiny-random', rpm: 5, tpm: null, rpd: null });
    expect((await verify(secret))?.rateLimits).toEqual({
      apiTier: 'partner',
      account: [
        { target: '*', rpm: null, tpm: null, rpd: 10_000 },
        { target: 'text:L', rpm: 120, tpm: 2_000_000, rpd: null },
      ],
      key: [{ target: 'model:svc-tiny-random', rpm: 5, tpm: null, rpd: null }],
    });

    expect(await repo.patchAccount(accountId, 'text:L', { tpm: null })).toEqual({ target: 'text:L', rpm: 120, tpm: null, rpd: null });
    expect(await repo.patchAccount(accountId, 'text:L', { rpm: null })).toBeNull();
    expect(await repo.clearKey(keyId)).toBe(1);
    expect(await repo.forAccount(accountId)).toEqual({
      accountId,
      apiTier: 'partner',
      account: [{ target: '*', rpm: null, tpm: null, rpd: 10_000 }],
      keys: [],
    });
    expect(await repo.clearAccount(accountId)).toBe(1);
    expect((await verify(secret))?.rateLimits).toEqual({ apiTier: 'partner', account: [], key: [] });
  });

  it('refuses overrides for accounts that do not exist and keys that were deleted', async () => {
    const { accountId, keyId } = await accountWithKey();
    expect(await repo.patchAccount('99999999-9999-4999-8999-999999999999', '*', { rpm: 1 })).toBeUndefined();
    expect(await repo.setTier('99999999-9999-4999-8999-999999999999', 'partner')).toBe(false);
    await h.rpc.send(KEYS.DELETE, { accountId, id: keyId });
    expect(await repo.patchKey(keyId, '*', { rpm: 1 })).toBeUndefined();
  });

  it('tells every gateway to re-verify the account’s keys after a change (the CLI path)', async () => {
    const { accountId, keyId } = await accountWithKey();
    const service = new RateLimitsService(repo, new PrismaKeysRepository(prisma), new NatsKeyEvents(h.rpc));
    await service.set(setLimitsSchema.parse({ accountId, rpm: '42' }));
    await eventually(async () => (revoked.some((e) => e.ids.includes(keyId)) ? true : undefined));
  });
});
