import { randomBytes } from 'node:crypto';
import { CreateKeyRequest, KEYS } from '@svc/contracts';
import { ErrorCode } from '@svc/errors';
import { MAX_ACTIVE_KEYS_PER_ACCOUNT } from '../../src/keys/keys.service';
import { createKeysHarness, KeysHarness } from './support/keys-harness';

let h: KeysHarness;

beforeAll(async () => {
  h = await createKeysHarness('keys_limit');
  await h.start();
});
afterAll(() => h?.stop());

/** Inserts active keys straight into the database: creating 500 over NATS would only be slower. */
async function seedKeys(accountId: string, count: number): Promise<void> {
  await h.sql.query(
    `INSERT INTO api_keys (account_id, type, description, secret_hash, last6)
     SELECT $1, 'INFERENCE', 'seeded', encode(sha256((($2::text) || n)::bytea), 'hex'), 'seeded' FROM generate_series(1, $3) AS n`,
    [accountId, randomBytes(8).toString('hex'), count],
  );
}

const request = (accountId: string): CreateKeyRequest => ({
  accountId,
  apiKeyType: 'INFERENCE',
  description: 'one more',
  expiresAt: null,
  consumptionLimits: { usd: null, diem: null },
  limitPeriod: 'EPOCH',
  modelPrivacy: 'ALL',
});

describe(`the ${MAX_ACTIVE_KEYS_PER_ACCOUNT}-active-keys limit`, () => {
  it('allows the last key, refuses the next, and frees a slot on delete', async () => {
    const { accountId } = await h.rpc.send(KEYS.CREATE_ACCOUNT, { name: 'busy' });
    await seedKeys(accountId, MAX_ACTIVE_KEYS_PER_ACCOUNT - 1);
    const last = await h.rpc.send(KEYS.CREATE, request(accountId));
    await expect(h.rpc.send(KEYS.CREATE, request(accountId))).rejects.toMatchObject({
      code: ErrorCode.Validation,
      message: expect.stringMatching(/at most 500/),
    });
    await h.rpc.send(KEYS.DELETE, { accountId, id: last.data.id });
    await expect(h.rpc.send(KEYS.CREATE, request(accountId))).resolves.toHaveProperty('apiKey');
  });

  it('holds when creates race', async () => {
    const { accountId } = await h.rpc.send(KEYS.CREATE_ACCOUNT, { name: 'racy' });
    await seedKeys(accountId, MAX_ACTIVE_KEYS_PER_ACCOUNT - 2);
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => h.rpc.send(KEYS.CREATE, request(accountId))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const { rows } = await h.sql.query('SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND deleted_at IS NULL', [accountId]);
    expect(rows[0].n).toBe(MAX_ACTIVE_KEYS_PER_ACCOUNT);
  });

  it('refuses keys for an account that does not exist', async () => {
    await expect(h.rpc.send(KEYS.CREATE, request('00000000-0000-4000-8000-000000000000'))).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });
});
