export * from './nats/nats-server';
export * from './stack/free-port';
export * from './stack/start-platform';
export * from './upstream';
export * from './db';
