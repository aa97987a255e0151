import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { MigrationFile } from './migration-files';
import { MigrationRow } from './migration-plan';

/** The key `prisma migrate` locks too, so our runner and Prisma's never interleave. */
export const PRISMA_MIGRATE_LOCK_KEY = 72707369;

// Prisma's own DDL for its bookkeeping table (PostgreSQL), column for column.
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export async function ensureMigrationsTable(client: Client): Promise<void> {
  await client.query(CREATE_TABLE);
}

export async function readMigrationRows(client: Client): Promise<MigrationRow[]> {
  const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at',
  );
  return rows.map((r) => ({ migrationName: r.migration_name, checksum: r.checksum, finishedAt: r.finished_at, rolledBackAt: r.rolled_back_at }));
}

/** Runs one migration and records it in the same transaction: applied and recorded, or neither. */
export async function applyMigration(client: Client, migration: MigrationFile): Promise<void> {
  await client.query('BEGIN');
  try {
    const { rows } = await client.query<{ started: Date }>('SELECT clock_timestamp() AS started');
    await client.query(migration.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
       VALUES ($1, $2, clock_timestamp(), $3, NULL, NULL, $4, 1)`,
      [randomUUID(), migration.checksum, migration.name, rows[0].started],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
