import { callJson } from '../../api/client';
import { Session } from '../../api/session';
import { UsageAnalytics } from '../../api/types';
import { RankedBars } from '../../components/charts/RankedBars';
import { StackedBarChart, StackedDay } from '../../components/charts/StackedBarChart';
import { ErrorNote } from '../../components/ErrorNote';
import { useApi } from '../../lib/use-api';

/** A day as YYYY-MM-DD: the analytics rows carry it as that text or as epoch milliseconds. */
export const dayOf = (date: number | string | undefined): string => (typeof date === 'number' ? new Date(date).toISOString().slice(0, 10) : String(date));

/** The daily series of the analytics answer, oldest day first, numbers only. */
export function toDays(rows: Array<Record<string, number | string>>): StackedDay[] {
  return rows
    .map((row) => {
      const values: Record<string, number> = {};
      for (const [name, value] of Object.entries(row)) if (name !== 'date' && typeof value === 'number') values[name] = value;
      return { date: dayOf(row.date), values };
    })
    .sort((a, b) => a.date.localeCompare(b.date));
}

/** Spend per day stacked by model, top models and top keys (GET /billing/usage-analytics). */
export function UsageCharts({ session, days, refresh }: { session: Session; days: number; refresh: number }) {
  const analytics = useApi(
    async (signal) => (await callJson<UsageAnalytics>('/billing/usage-analytics', { key: session.key, query: { lookback: `${days}d` }, signal })).data,
    [session.key, days, refresh],
  );
  const a = analytics.data;
  return (
    <section aria-labelledby="usage-title" className="card">
      <h2 id="usage-title">Usage, last {days} days</h2>
      <ErrorNote message={analytics.error} />
      {a && (
        <>
          <StackedBarChart title="Spend per day by model (USD)" days={toDays(a.byModelDaily)} series={a.topModels} unit="USD" />
          <div className="two">
            <RankedBars title="Top models" rows={a.byModel.map((m) => ({ name: m.modelName, value: m.totalUsd }))} unit="USD" />
            <RankedBars title="Top keys" rows={a.byKey.map((k) => ({ name: k.description, value: k.totalUsd }))} unit="USD" />
          </div>
        </>
      )}
    </section>
  );
}
