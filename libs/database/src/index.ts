export * from './database-url';
export * from './ensure-database';
export * from './service-migrations';
export * from './prisma-client';
export * from './migrations/migration-error';
export * from './migrations/migration-files';
export * from './migrations/migration-plan';
export * from './migrations/run-migrations';
export { PRISMA_MIGRATE_LOCK_KEY } from './migrations/migrations-table';
