import { randomBytes } from 'node:crypto';
import { hashApiKeySecret } from '@svc/auth';
import { KEYS } from '@svc/contracts';
import { AdminKeyBootstrapper } from '../../src/bootstrap/admin-key.bootstrapper';
import { createKeysHarness, KeysHarness } from './support/keys-harness';

let h: KeysHarness;
const adminKey = `svc_bootstrap_${randomBytes(16).toString('hex')}`;

beforeAll(async () => {
  h = await createKeysHarness('keys_bootstrap');
});
afterAll(() => h?.stop());

async function bootstrapRows() {
  const { rows } = await h.sql.query(
    `SELECT k.id, k.type, k.deleted_at, a.name FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.secret_hash = $1`,
    [hashApiKeySecret(adminKey)],
  );
  return rows;
}

describe('SVC_ADMIN_KEY bootstrap', () => {
  it('creates one ADMIN key even when replicas boot at the same time', async () => {
    await Promise.all([h.start({ SVC_ADMIN_KEY: adminKey }), h.start({ SVC_ADMIN_KEY: adminKey }), h.start({ SVC_ADMIN_KEY: adminKey })]);
    const rows = await bootstrapRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual(expect.objectContaining({ type: 'ADMIN', name: 'bootstrap', deleted_at: null }));
    const { key } = await h.rpc.send(KEYS.VERIFY, { secretHash: hashApiKeySecret(adminKey) });
    expect(key).toEqual(expect.objectContaining({ id: rows[0].id, apiKeyType: 'ADMIN', expiresAt: null }));
  });

  it('changes nothing on restart', async () => {
    const before = await bootstrapRows();
    await h.start({ SVC_ADMIN_KEY: adminKey });
    expect(await bootstrapRows()).toEqual(before);
    const { rows } = await h.sql.query(`SELECT count(*)::int AS n FROM accounts WHERE name = 'bootstrap'`);
    expect(rows[0].n).toBe(1);
  });

  it('keeps a revoked bootstrap key revoked', async () => {
    const [row] = await bootstrapRows();
    const { rows } = await h.sql.query('SELECT account_id FROM api_keys WHERE id = $1', [row.id]);
    await h.rpc.send(KEYS.DELETE, { accountId: rows[0].account_id, id: row.id });
    const app = await h.start({ SVC_ADMIN_KEY: adminKey });
    expect(await app.get(AdminKeyBootstrapper).ensure(adminKey)).toBe('revoked');
    expect((await h.rpc.send(KEYS.VERIFY, { secretHash: hashApiKeySecret(adminKey) })).key).toBeNull();
    expect(await bootstrapRows()).toHaveLength(1);
  });
});
