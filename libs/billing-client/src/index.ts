export * from './billing-settler';
export * from './billed-stream';
