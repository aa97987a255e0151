import { MigrateResult, runMigrations, serviceMigrationsDir } from '@svc/database';

export const keysMigrationsDir = (): string => serviceMigrationsDir('keys');

/** Creates svc_keys when missing and applies the committed migrations (idempotent, locked). */
export function migrateKeysDatabase(databaseUrl: string, log?: (message: string) => void): Promise<MigrateResult> {
  return runMigrations({ databaseUrl, migrationsDir: keysMigrationsDir(), log });
}
