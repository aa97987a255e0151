export * from './tracing-state';
export * from './tracing-env';
export * from './start-tracing';
export * from './nats-context';
export * from './nats-spans';
export * from './engine-spans';
export * from './request-spans';
export * from './http-client-spans';
