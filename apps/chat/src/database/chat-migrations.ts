import { MigrateResult, runMigrations, serviceMigrationsDir } from '@svc/database';

export const chatMigrationsDir = (): string => serviceMigrationsDir('chat');

/** Creates svc_chat when missing and applies the committed migrations (idempotent, locked). */
export function migrateChatDatabase(databaseUrl: string, log?: (message: string) => void): Promise<MigrateResult> {
  return runMigrations({ databaseUrl, migrationsDir: chatMigrationsDir(), log });
}
