export * from './siwx-headers';
export * from './x402-payments';
export * from './x402-facilitator';
export * from './x402-solana';
