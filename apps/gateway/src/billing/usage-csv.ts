import { UsageHistoryEntry } from '@svc/contracts';

const COLUMNS = [
  'timestamp',
  'sku',
  'units',
  'pricePerUnitUsd',
  'amount',
  'currency',
  'notes',
  'requestId',
  'promptTokens',
  'completionTokens',
  'inferenceExecutionTime',
] as const;

/** Plain decimals (never 2e-7): amounts are at most nano-precise, units at most 12 decimals. */
function decimal(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(12).replace(/0+$/, '').replace(/\.$/, '');
}

function cell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'number' ? decimal(value) : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One usage-history page as CSV (RFC 4180, header row first). */
export function usageCsv(rows: UsageHistoryEntry[]): string {
  const lines = [COLUMNS.join(',')];
  for (const r of rows) {
    const d = r.inferenceDetails;
    lines.push(
      [
        r.timestamp,
        r.sku,
        r.units,
        r.pricePerUnitUsd,
        r.amount,
        r.currency,
        r.notes,
        d?.requestId,
        d?.promptTokens,
        d?.completionTokens,
        d?.inferenceExecutionTime,
      ]
        .map(cell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** `billing-usage-history-20260708T091530123Z.csv`: unique per export, sorts in walk order. */
export function csvFilename(now = new Date()): string {
  return `billing-usage-history-${now.toISOString().replace(/[-:.]/g, '')}.csv`;
}
