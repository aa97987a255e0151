import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { MigrationError } from './migration-error';

export interface MigrationFile {
  /** The folder name, `<timestamp>_<name>`, as Prisma records it. */
  name: string;
  sql: string;
  /** Hex SHA-256 of migration.sql's bytes, as Prisma computes it. */
  checksum: string;
}

export function checksumOf(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Every `<dir>/<name>/migration.sql`, ordered by folder name like Prisma does. */
export async function readMigrations(dir: string): Promise<MigrationFile[]> {
  if (!existsSync(dir)) throw new MigrationError('NO_MIGRATIONS_DIR', `No migrations folder at ${dir}`);
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name, 'migration.sql');
      if (!existsSync(file)) throw new MigrationError('MISSING_SQL', `Migration folder ${name} has no migration.sql`, [name]);
      const bytes = await readFile(file);
      return { name, sql: bytes.toString('utf8'), checksum: checksumOf(bytes) };
    }),
  );
}
