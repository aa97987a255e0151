import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { REPO_ROOT } from '@svc/config';
import { dropTestDatabase, testDatabaseName, testPgServerUrl } from '@svc/testing';
import { migrateAll } from '../../src/migrate-all';

describe('migrateAll', () => {
  const url = `${testPgServerUrl()}/${testDatabaseName('migrate_all')}`;
  const billingUrl = `${testPgServerUrl()}/${testDatabaseName('migrate_all_billing')}`;
  const chatUrl = `${testPgServerUrl()}/${testDatabaseName('migrate_all_chat')}`;
  const walletUrl = `${testPgServerUrl()}/${testDatabaseName('migrate_all_wallet')}`;
  afterAll(() => Promise.all([dropTestDatabase(url), dropTestDatabase(billingUrl), dropTestDatabase(chatUrl), dropTestDatabase(walletUrl)]));

  async function tables(databaseUrl: string): Promise<string[]> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`);
    await client.end();
    return rows.map((r) => r.table_name);
  }

  const billingMigrations = readdirSync(path.join(REPO_ROOT, 'apps/billing/prisma/migrations'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

  it('creates and migrates every service database, then has nothing left to do', async () => {
    expect(billingMigrations[0]).toMatch(/_created_billing_ledger$/);
    const env = { KEYS_DATABASE_URL: url, BILLING_DATABASE_URL: billingUrl, CHAT_DATABASE_URL: chatUrl, WALLET_DATABASE_URL: walletUrl };
    const first = await migrateAll({ env });
    expect(first.map((r) => r.service)).toEqual(['keys', 'billing', 'chat', 'wallet']);
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
        // Every migration folder, in order: the first is the one that creates the ledger.
        applied: billingMigrations,
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
      'x402_payments',
    ]);
    expect(await tables(chatUrl)).toEqual(['_prisma_migrations', 'character_reviews', 'characters']);
    expect(await tables(walletUrl)).toEqual(['_prisma_migrations', 'used_nonces', 'wallet_accounts', 'wallet_secrets']);
  });
});
