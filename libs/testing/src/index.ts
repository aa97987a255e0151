export * from './nats/nats-server';
export * from './stack/free-port';
export * from './stack/start-platform';
export * from './upstream';
export * from './db';
export * from './redis/redis-server';
export * from './billing/fake-billing';
export * from './stack/wait-for-port';
