export * from './character';
export * from './subjects';
