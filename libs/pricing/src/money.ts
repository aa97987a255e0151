import { BillingCurrency } from '@svc/contracts';

/**
 * Money is an integer number of nano-units (1e-9 USD or 1e-9 DIEM) held in a bigint, never a
 * float. A price of 0.01 USD per million tokens is 10 nano-USD per token, exactly.
 */
export const NANOS_PER_UNIT = 1_000_000_000n;
export const DECIMALS = 9;

export type Currency = BillingCurrency;

/** An amount in both currencies, e.g. the price of one unit or the cost of a request. */
export interface Amounts {
  usd: bigint;
  diem: bigint;
}

export class MoneyFormatError extends Error {
  override name = 'MoneyFormatError';
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** "12.5" -> 12_500_000_000n. Refuses more than 9 decimals instead of rounding silently. */
export function parseAmount(text: string): bigint {
  const match = DECIMAL.exec(text.trim());
  if (!match) throw new MoneyFormatError(`"${text}" is not a decimal amount (e.g. 12.5)`);
  const [, minus, whole, fraction = ''] = match;
  if (fraction.length > DECIMALS) throw new MoneyFormatError(`"${text}" has more than ${DECIMALS} decimals`);
  const nano = BigInt(whole) * NANOS_PER_UNIT + BigInt(fraction.padEnd(DECIMALS, '0'));
  return minus ? -nano : nano;
}

/**
 * A JSON number (a catalog price, a key limit) in nano-units, rounded to the nearest nano.
 * `toFixed(9)` rounds the binary value correctly, so 0.01 becomes exactly 10_000_000n.
 */
export function amountOf(value: number): bigint {
  const known = AMOUNTS.get(value);
  if (known !== undefined) return known;
  if (!Number.isFinite(value)) throw new MoneyFormatError(`${value} is not a finite amount`);
  const nano = parseAmount(value.toFixed(DECIMALS));
  if (AMOUNTS.size < AMOUNTS_KEPT) AMOUNTS.set(value, nano);
  return nano;
}

/** Catalog prices and key limits are few and asked for on every request: each is converted once. */
const AMOUNTS = new Map<number, bigint>();
const AMOUNTS_KEPT = 4096;

/**
 * 12_500_000_000n -> "12.50": every significant decimal, at least `minDecimals`. Exact, so
 * balances in headers and the CLI can be compared as strings.
 */
export function formatAmount(nano: bigint, minDecimals = 2): string {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  const whole = abs / NANOS_PER_UNIT;
  let fraction = (abs % NANOS_PER_UNIT).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  if (fraction.length < minDecimals) fraction = fraction.padEnd(minDecimals, '0');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** For JSON bodies that the public API types as numbers (balances, `cost`). Display only. */
export function toNumber(nano: bigint): number {
  return Number(formatAmount(nano, 0));
}

/** Integer division rounding up, for non-negative operands: charges never round down to free. */
export function divCeil(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

export const zeroAmounts = (): Amounts => ({ usd: 0n, diem: 0n });

export function addAmounts(a: Amounts, b: Amounts): Amounts {
  return { usd: a.usd + b.usd, diem: a.diem + b.diem };
}

export function amountIn(amounts: Amounts, currency: Currency): bigint {
  return currency === 'USD' ? amounts.usd : amounts.diem;
}
