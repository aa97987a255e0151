export * from './load-config';
export * from './common-env';
export * from './repo-root';
export * from './origin-list';
