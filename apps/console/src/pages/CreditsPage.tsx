import { useState } from 'react';
import { Session } from '../api/session';
import { Balances } from './credits/Balances';
import { UsageCharts } from './credits/UsageCharts';
import { UsageHistory } from './credits/UsageHistory';

const PERIODS = [7, 30, 90] as const;

export function CreditsPage({ session }: { session: Session }) {
  const [days, setDays] = useState<number>(7);
  const [refresh, setRefresh] = useState(0);
  return (
    <>
      <div className="toolbar">
        <label htmlFor="period">Period</label>
        <select id="period" value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {PERIODS.map((d) => (
            <option key={d} value={d}>
              {d} days
            </option>
          ))}
        </select>
        <button type="button" onClick={() => setRefresh((r) => r + 1)}>
          Refresh
        </button>
      </div>
      <Balances session={session} refresh={refresh} />
      <UsageCharts session={session} days={days} refresh={refresh} />
      <UsageHistory session={session} refresh={refresh} />
    </>
  );
}
