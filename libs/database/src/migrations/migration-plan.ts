import { MigrationError } from './migration-error';
import { MigrationFile } from './migration-files';

/** One `_prisma_migrations` row, reduced to what deciding needs. */
export interface MigrationRow {
  migrationName: string;
  checksum: string;
  finishedAt: Date | null;
  rolledBackAt: Date | null;
}

export interface MigrationPlan {
  pending: MigrationFile[];
  applied: string[];
  /** Recorded in the database but absent here: the code is older than the database. */
  unknown: string[];
}

const isApplied = (r: MigrationRow) => r.finishedAt !== null && r.rolledBackAt === null;
const isFailed = (r: MigrationRow) => r.finishedAt === null && r.rolledBackAt === null;

/** Decides what to apply, refusing edited or half-applied migrations (Prisma's P3009 state). */
export function planMigrations(local: MigrationFile[], rows: MigrationRow[]): MigrationPlan {
  const applied = new Map(rows.filter(isApplied).map((r) => [r.migrationName, r]));
  const failed = rows.filter((r) => isFailed(r) && !applied.has(r.migrationName)).map((r) => r.migrationName);
  if (failed.length) {
    throw new MigrationError(
      'FAILED_MIGRATION',
      `Migration ${failed.join(', ')} failed earlier and is recorded as unfinished. Repair the database, then mark it with \`prisma migrate resolve\` or delete its _prisma_migrations row.`,
      failed,
    );
  }
  const changed = local.filter((m) => applied.has(m.name) && applied.get(m.name)?.checksum !== m.checksum).map((m) => m.name);
  if (changed.length) {
    throw new MigrationError(
      'CHECKSUM_CHANGED',
      `Applied migration ${changed.join(', ')} was edited after it ran (checksum differs). Restore the committed file and put the change in a new migration.`,
      changed,
    );
  }
  const localNames = new Set(local.map((m) => m.name));
  return {
    pending: local.filter((m) => !applied.has(m.name)),
    applied: local.filter((m) => applied.has(m.name)).map((m) => m.name),
    unknown: [...applied.keys()].filter((name) => !localNames.has(name)).sort(),
  };
}
