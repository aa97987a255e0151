import { Client } from 'pg';
import { dropTestDatabase, testDatabaseName, testPgServerUrl } from '@svc/testing';
import { migrateAll } from '../../src/migrate-all';

describe('migrateAll', () => {
  const url = `${testPgServerUrl()}/${testDatabaseName('migrate_all')}`;
  const billingUrl = `${testPgServerUrl()}/${testDatabaseName('migrate_all_billing')}`;
  const chatUrl = `${testPgServerUrl()}/${testDatabaseName('migrate_all_chat')}`;
  afterAll(() => Promise.all([dropTestDatabase(url), dropTestDatabase(billingUrl), dropTestDatabase(chatUrl)]));

  async function tables(databaseUrl: string): Promise<string[]> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`);
    await client.end();
    return rows.map((r) => r.table_name);
  }

  it('creates and migrates every service database, then has nothing left to do', async () => {
    const env = { KEYS_DATABASE_URL: url, BILLING_DATABASE_URL: billingUrl, CHAT_DATABASE_URL: chatUrl };
    const first = await migrateAll({ env });
    expect(first.map((r) => r.service)).toEqual(['keys', 'billing', 'chat']);
    expect(first[0]).toEqual(
      expect.objectContaining({
        service: 'keys',
        createdDatabase: true,
        applied: expect.arrayContaining([expect.stringMatching(/_created_accounts_and_api_keys$/)]),
      }),
    );
    expect(first[1]).toEqual(
      expect.objectContaining({
        service: 'billing',
        createdDatabase: true,
        applied: [
          expect.stringMatching(/_created_billing_ledger$/),
          expect.stringMatching(/_settlement_capped_at_hold$/),
          expect.stringMatching(/_credit_leases$/),
        ],
      }),
    );
    const second = await migrateAll({ env });
    expect(second.flatMap((r) => r.applied)).toEqual([]);
    expect(await tables(url)).toEqual(expect.arrayContaining(['_prisma_migrations', 'accounts', 'api_keys']));
    expect(await tables(billingUrl)).toEqual([
      '_prisma_migrations',
      'billing_accounts',
      'billing_secrets',
      'key_usage',
      'leases',
      'ledger_entries',
      'reservations',
      'usage_entries',
    ]);
    expect(await tables(chatUrl)).toEqual(['_prisma_migrations', 'character_reviews', 'characters']);
  });
});
