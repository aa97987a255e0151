export * from './test-database-name';
export * from './test-database';
