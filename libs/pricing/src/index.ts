export * from './money';
export * from './pricing.schema';
export * from './usage';
export * from './quote';
