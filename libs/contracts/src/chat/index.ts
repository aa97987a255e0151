export * from './chat-request';
export * from './chat-response';
export * from './subjects';
export * from './svc-parameters';
export * from './prompt-budget';
export * from './upstream-retries';
export * from './schemas';
