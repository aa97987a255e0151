export type MigrationErrorCode = 'NO_MIGRATIONS_DIR' | 'MISSING_SQL' | 'CHECKSUM_CHANGED' | 'FAILED_MIGRATION' | 'APPLY_FAILED' | 'LOCK_TIMEOUT';

/** Why migrating stopped; the message says what to do next. */
export class MigrationError extends Error {
  override name = 'MigrationError';

  constructor(
    readonly code: MigrationErrorCode,
    message: string,
    readonly migrations: string[] = [],
  ) {
    super(message);
  }
}
