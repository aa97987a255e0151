export * from './subjects';
export * from './schemas';
export * from './eip3009';
