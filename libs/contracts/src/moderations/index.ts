export * from './subjects';
export * from './schemas';
