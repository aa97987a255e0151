/** CAIP-2 ids of the two rails (x402 v2 names networks this way). */
export const BASE_MAINNET = 'eip155:8453';
export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
export const BASE_CHAIN_ID = 8453;

/** USDC has 6 decimals on both rails; credits are kept in nano-USD (1e-9). */
export const USDC_DECIMALS = 6;
export const NANO_PER_USDC_UNIT = 1000n;
export const USDC_UNITS_PER_USD = 1_000_000n;

export const MIN_TOP_UP_USD = 5;
export const MAX_TOP_UP_USD = 10_000;
export const SUGGESTED_TOP_UP_USD = 10;
export const MIN_TOP_UP_UNITS = BigInt(MIN_TOP_UP_USD) * USDC_UNITS_PER_USD;
export const MAX_TOP_UP_UNITS = BigInt(MAX_TOP_UP_USD) * USDC_UNITS_PER_USD;
