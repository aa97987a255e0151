import { Client } from 'pg';
import { databaseNameOf, quoteIdentifier, withDatabase } from './database-url';

// Two processes racing to CREATE DATABASE: one gets duplicate_database, or unique_violation
// on pg_database's name index when the catalogs collide.
const ALREADY_EXISTS = new Set(['42P04', '23505']);

/** Creates the URL's database if it does not exist, connecting to the server's `postgres` db. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseNameOf(url);
  const admin = new Client({ connectionString: withDatabase(url, 'postgres'), connectionTimeoutMillis: 5_000 });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    await admin.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
    return true;
  } catch (err) {
    if (ALREADY_EXISTS.has((err as { code?: string }).code ?? '')) return false;
    throw err;
  } finally {
    await admin.end();
  }
}

/** Drops the URL's database, disconnecting any session still using it. */
export async function dropDatabase(url: string): Promise<void> {
  const admin = new Client({ connectionString: withDatabase(url, 'postgres'), connectionTimeoutMillis: 5_000 });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(databaseNameOf(url))} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
