export * from './header-keys';
export * from './version';
export * from './request-id';
