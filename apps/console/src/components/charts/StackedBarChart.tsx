import { colourOf } from './palette';

export interface StackedDay {
  date: string;
  values: Record<string, number>;
}

interface Props {
  title: string;
  days: StackedDay[];
  series: string[];
  unit: string;
}

const W = 640;
const H = 220;
const PAD = { left: 56, right: 8, top: 8, bottom: 28 };

/**
 * Spend per day stacked by series, as plain SVG (no chart library: one chart kind, ~80 lines,
 * nothing to load). A table with the same numbers follows for screen readers and for copying.
 */
export function StackedBarChart({ title, days, series, unit }: Props) {
  const totals = days.map((d) => series.reduce((sum, s) => sum + (d.values[s] ?? 0), 0));
  const max = Math.max(0, ...totals) || 1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(days.length, 1);
  const barW = Math.max(2, slot * 0.7);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const labelEvery = Math.ceil(days.length / 8);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}: ${days.length} days, highest day ${max.toFixed(6)} ${unit}`}>
        <line x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} stroke="#5c5c5c" />
        {[0.5, 1].map((f) => (
          <g key={f}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(max * f)} y2={y(max * f)} stroke="#d0d0d0" />
            <text x={PAD.left - 4} y={y(max * f) + 4} textAnchor="end" fontSize="11">
              {(max * f).toPrecision(3)}
            </text>
          </g>
        ))}
        {days.map((day, i) => {
          let base = 0;
          const x = PAD.left + i * slot + (slot - barW) / 2;
          return (
            <g key={day.date} data-date={day.date}>
              {series.map((s, j) => {
                const v = day.values[s] ?? 0;
                if (v <= 0) return null;
                const top = y(base + v);
                const rect = (
                  <rect key={s} x={x} y={top} width={barW} height={y(base) - top} fill={colourOf(j)} data-series={s} data-value={v}>
                    <title>{`${day.date} ${s}: ${v} ${unit}`}</title>
                  </rect>
                );
                base += v;
                return rect;
              })}
              {i % labelEvery === 0 && (
                <text x={x + barW / 2} y={H - 10} textAnchor="middle" fontSize="11">
                  {day.date.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <ul className="legend" aria-label="Legend">
        {series.map((s, j) => (
          <li key={s}>
            <span className="swatch" style={{ background: colourOf(j) }} aria-hidden="true" />
            {s}
          </li>
        ))}
      </ul>
      <details>
        <summary>Show the numbers</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Date</th>
              {series.map((s) => (
                <th scope="col" key={s}>
                  {s}
                </th>
              ))}
              <th scope="col">Total ({unit})</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d, i) => (
              <tr key={d.date}>
                <th scope="row">{d.date}</th>
                {series.map((s) => (
                  <td key={s}>{d.values[s] ?? 0}</td>
                ))}
                <td data-total={d.date}>{totals[i]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
