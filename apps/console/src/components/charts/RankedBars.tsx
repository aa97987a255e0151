import { formatAmount } from '../../lib/money';

interface Props {
  title: string;
  rows: Array<{ name: string; value: number }>;
  unit: string;
}

/** A ranked list with proportional bars (top models, top keys): HTML, so it reads as a list. */
export function RankedBars({ title, rows, unit }: Props) {
  const max = Math.max(0, ...rows.map((r) => r.value)) || 1;
  return (
    <section className="ranked" aria-label={title}>
      <h3>{title}</h3>
      {rows.length === 0 ? (
        <p className="hint">No usage in this period.</p>
      ) : (
        <ol>
          {rows.map((r) => (
            <li key={r.name}>
              <span className="ranked-name">{r.name}</span>
              <span className="ranked-bar" style={{ width: `${(r.value / max) * 100}%` }} aria-hidden="true" />
              <span className="ranked-value">{formatAmount(r.value, unit)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
