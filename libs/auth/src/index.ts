export * from './api-key-secret';
