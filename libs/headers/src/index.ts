export * from './header-keys';
export * from './version';
export * from './request-id';
export * from './retry-after';
export * from './correlation';
export * from './cors';
export * from './pagination';
