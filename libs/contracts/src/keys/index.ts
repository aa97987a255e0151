export * from './api-key';
export * from './subjects';
