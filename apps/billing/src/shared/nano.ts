/** BIGINT columns arrive from pg as decimal strings; null stays null. */
export const big = (value: string | null | undefined): bigint => (value === null || value === undefined ? 0n : BigInt(value));
export const bigOrNull = (value: string | null | undefined): bigint | null => (value === null || value === undefined ? null : BigInt(value));
