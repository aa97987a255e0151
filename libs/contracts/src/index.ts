export * from './services';
export * from './rpc';
export * from './health';
export * from './keys';
export * from './chat';
export * from './billing';
export * from './stream';
