import { Client } from 'pg';
import { databaseNameOf } from '../database-url';
import { ensureDatabase } from '../ensure-database';
import { MigrationError } from './migration-error';
import { readMigrations } from './migration-files';
import { planMigrations } from './migration-plan';
import { applyMigration, ensureMigrationsTable, PRISMA_MIGRATE_LOCK_KEY, readMigrationRows } from './migrations-table';
import { errorMessage } from '@svc/errors';

export interface MigrateOptions {
  databaseUrl: string;
  /** Folder of `<timestamp>_<name>/migration.sql`, e.g. serviceMigrationsDir('keys'). */
  migrationsDir: string;
  /** Create the database first when missing (default true). */
  createDatabase?: boolean;
  /** How long to wait for another runner (another replica, `prisma migrate`) to finish. */
  lockTimeoutMs?: number;
  log?: (message: string) => void;
}

export interface MigrateResult {
  database: string;
  createdDatabase: boolean;
  applied: string[];
  alreadyApplied: string[];
  unknown: string[];
}

/**
 * Applies pending migrations in order, one transaction each, under Prisma's advisory lock, and
 * records them in `_prisma_migrations` the way `prisma migrate deploy` does.
 */
export async function runMigrations(options: MigrateOptions): Promise<MigrateResult> {
  const log = options.log ?? (() => undefined);
  const database = databaseNameOf(options.databaseUrl);
  const migrations = await readMigrations(options.migrationsDir);
  const createdDatabase = options.createDatabase === false ? false : await ensureDatabase(options.databaseUrl);
  if (createdDatabase) log(`created database ${database}`);

  const client = new Client({ connectionString: options.databaseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await takeLock(client, options.lockTimeoutMs ?? 60_000, database);
    await ensureMigrationsTable(client);
    const plan = planMigrations(migrations, await readMigrationRows(client));
    if (plan.unknown.length) log(`${database}: database has migrations this code does not know: ${plan.unknown.join(', ')}`);
    for (const migration of plan.pending) {
      const started = Date.now();
      try {
        await applyMigration(client, migration);
      } catch (err) {
        const reason = errorMessage(err);
        throw new MigrationError('APPLY_FAILED', `${database}: migration ${migration.name} failed and was rolled back: ${reason}`, [migration.name]);
      }
      log(`${database}: applied ${migration.name} in ${Date.now() - started} ms`);
    }
    return { database, createdDatabase, applied: plan.pending.map((m) => m.name), alreadyApplied: plan.applied, unknown: plan.unknown };
  } finally {
    // Ending the session releases the advisory lock as well.
    await client.end().catch(() => undefined);
  }
}

async function takeLock(client: Client, timeoutMs: number, database: string): Promise<void> {
  await client.query(`SET lock_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK_KEY]);
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') {
      throw new MigrationError('LOCK_TIMEOUT', `${database}: another migration run held the lock for more than ${timeoutMs} ms`);
    }
    throw err;
  }
  await client.query('SET lock_timeout = 0');
}
