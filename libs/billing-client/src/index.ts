export * from './billing-settler';
export * from './billed-stream';
export * from './settlement-journal';
