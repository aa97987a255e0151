export * from './character';
export * from './subjects';
export * from './schemas';
