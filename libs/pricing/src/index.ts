export * from './money';
export * from './pricing.schema';
export * from './usage';
export * from './quote';
export * from './video-pricing.schema';
export * from './video-usage';
