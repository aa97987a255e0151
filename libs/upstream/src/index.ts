export * from './upstream-kind';
export * from './scrub';
export * from './upstream-body';
export * from './retry-after';
export * from './transport';
export * from './upstream-errors';
export * from './fetch-text';
