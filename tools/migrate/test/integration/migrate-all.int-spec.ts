import { Client } from 'pg';
import { dropTestDatabase, testDatabaseName, testPgServerUrl } from '@svc/testing';
import { migrateAll } from '../../src/migrate-all';

describe('migrateAll', () => {
  const url = `${testPgServerUrl()}/${testDatabaseName('migrate_all')}`;
  afterAll(() => dropTestDatabase(url));

  it('creates and migrates every service database, then has nothing left to do', async () => {
    const env = { KEYS_DATABASE_URL: url };
    const [first] = await migrateAll({ env });
    expect(first).toEqual(expect.objectContaining({ service: 'keys', createdDatabase: true, applied: [expect.stringMatching(/_created_accounts_and_api_keys$/)] }));
    const [second] = await migrateAll({ env });
    expect(second.applied).toEqual([]);
    const client = new Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`);
    await client.end();
    expect(rows.map((r) => r.table_name)).toEqual(['_prisma_migrations', 'accounts', 'api_keys']);
  });
});
