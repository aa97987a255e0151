const finite = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v);

export const fmt = (v: number | undefined, digits = 2): string => (finite(v) ? v.toFixed(digits) : 'n/a');
export const fmtInt = (v: number | undefined): string => (finite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a');
export const signed = (v: number | undefined, digits = 2): string => (finite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(digits)}` : 'n/a');
export const times = (v: number | undefined): string => (finite(v) ? `${v.toFixed(2)}x` : 'n/a');

/** a ÷ b, NaN when either is missing or b is not positive. */
export function ratio(a: number | undefined, b: number | undefined): number {
  return finite(a) && finite(b) && b > 0 ? a / b : Number.NaN;
}

/** Columns padded to their widest cell: the first `leftAligned` ones left-aligned, numbers right-aligned; a rule under the header. */
export function columns(rows: string[][], leftAligned = 1): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const lines = rows.map((r) =>
    r
      .map((cell = '', i) => (i < leftAligned ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ')
      .trimEnd(),
  );
  lines.splice(1, 0, '-'.repeat(Math.max(...lines.map((l) => l.length))));
  return lines.join('\n');
}
