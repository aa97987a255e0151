const NANO = 1_000_000_000n;

/** USD price (as the API lists it) to nano-USD, exactly to 9 decimals. */
export function toNano(value: number): bigint {
  const [whole, fraction = ''] = value.toFixed(9).split('.');
  const sign = whole.startsWith('-') ? -1n : 1n;
  return sign * (BigInt(whole.replace('-', '')) * NANO + BigInt(fraction.padEnd(9, '0')));
}

/** 1_230_000n -> "0.00123": every significant decimal, at least two. */
export function formatNano(nano: bigint): string {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  const fraction = (abs % NANO).toString().padStart(9, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${negative ? '-' : ''}${abs / NANO}.${fraction}`;
}

/** An amount for a table or a chart label: two decimals, more when it is small. */
export function formatAmount(value: number, currency = 'USD'): string {
  const digits = value !== 0 && Math.abs(value) < 0.01 ? 6 : 2;
  return `${value.toFixed(digits)} ${currency}`;
}

export function formatDate(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';
}
