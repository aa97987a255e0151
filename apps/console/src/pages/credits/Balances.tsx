import { callJson } from '../../api/client';
import { Session } from '../../api/session';
import { Balance } from '../../api/types';
import { ErrorNote } from '../../components/ErrorNote';
import { useApi } from '../../lib/use-api';

/** USD and DIEM balances, with the exact USD amount of the x-svc-balance-usd header. */
export function Balances({ session, refresh }: { session: Session; refresh: number }) {
  const balance = useApi(
    async (signal) => {
      const { data, headers } = await callJson<Balance>('/billing/balance', { key: session.key, signal });
      return { data, exactUsd: headers.get('x-svc-balance-usd'), exactDiem: headers.get('x-svc-balance-diem') };
    },
    [session.key, refresh],
  );
  const b = balance.data;
  return (
    <section aria-labelledby="balances-title" className="card">
      <h2 id="balances-title">Balances</h2>
      <ErrorNote message={balance.error} />
      {b && (
        <dl className="balances">
          <dt>USD</dt>
          <dd data-testid="balance-usd">{b.exactUsd ?? b.data.balances.usd}</dd>
          <dt>DIEM</dt>
          <dd data-testid="balance-diem">{b.data.balances.diem === null ? 'no stake' : (b.exactDiem ?? b.data.balances.diem)}</dd>
          <dt>Paying with</dt>
          <dd>{b.data.consumptionCurrency}</dd>
        </dl>
      )}
    </section>
  );
}
