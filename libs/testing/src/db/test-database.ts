import { dropDatabase, ensureDatabase, runMigrations, withDatabase } from '@svc/database';
import { testDatabaseName } from './test-database-name';

export const DEFAULT_TEST_PG_URL = 'postgresql://postgres@127.0.0.1:5432';

/** The Postgres server tests use: TEST_PG_URL (server URL, no database) or the local default. */
export function testPgServerUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.TEST_PG_URL || DEFAULT_TEST_PG_URL).replace(/\/+$/, '');
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export interface CreateTestDatabaseOptions {
  /** Apply these committed migrations, e.g. serviceMigrationsDir('keys'). */
  migrationsDir?: string;
  serverUrl?: string;
}

/** A fresh, uniquely named database (parallel workers and runs never share one). */
export async function createTestDatabase(prefix: string, options: CreateTestDatabaseOptions = {}): Promise<TestDatabase> {
  const name = testDatabaseName(prefix);
  const url = withDatabase(`${options.serverUrl ?? testPgServerUrl()}/postgres`, name);
  await ensureDatabase(url);
  if (options.migrationsDir) await runMigrations({ databaseUrl: url, migrationsDir: options.migrationsDir, createDatabase: false });
  return { name, url, drop: () => dropTestDatabase(url) };
}

export function dropTestDatabase(database: TestDatabase | string): Promise<void> {
  return dropDatabase(typeof database === 'string' ? database : database.url);
}
