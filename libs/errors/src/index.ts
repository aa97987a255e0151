export * from './error-code';
export * from './status';
export * from './error-details';
export * from './domain-error';
export * from './openai-error';
export * from './http-body';
export * from './error-schemas';
export * from './openai-style';
