export * from './blob-store';
export * from './inline-or-blob';
export * from './lazy-blob-store';
