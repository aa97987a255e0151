import { MigrateResult, runMigrations, serviceMigrationsDir } from '@svc/database';

export const billingMigrationsDir = (): string => serviceMigrationsDir('billing');

/** Creates svc_billing when missing and applies the committed migrations (idempotent, locked). */
export function migrateBillingDatabase(databaseUrl: string, log?: (message: string) => void): Promise<MigrateResult> {
  return runMigrations({ databaseUrl, migrationsDir: billingMigrationsDir(), log });
}
