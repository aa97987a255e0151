export * from './api-key';
export * from './subjects';
export * from './rate-limits';
export * from './schemas';
