export * from './test-database-name';
export * from './test-database';
export * from './postgres-server';
