export * from './caller';
export * from './wire';
export * from './stored-text';
export * from './inline-budget';
export * from './json-byte-length';
export * from './inline-or-blob';
