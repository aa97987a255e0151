import { MigrateResult, runMigrations, serviceMigrationsDir } from '@svc/database';

export const walletMigrationsDir = (): string => serviceMigrationsDir('wallet');

/** Creates svc_wallet when missing and applies the committed migrations (idempotent, locked). */
export function migrateWalletDatabase(databaseUrl: string, log?: (message: string) => void): Promise<MigrateResult> {
  return runMigrations({ databaseUrl, migrationsDir: walletMigrationsDir(), log });
}
