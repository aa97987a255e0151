export * from './address-policy';
export * from './allowlist';
export * from './outbound-fetch';
export * from './outbound-env';
