export * from './money';
export * from './usage';
export * from './reserve';
export * from './settle';
export * from './account';
export * from './usage-history';
export * from './subjects';
