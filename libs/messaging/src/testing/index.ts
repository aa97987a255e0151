export * from './fake-rpc-client';
