import { useState } from 'react';
import { call, callJson } from '../../api/client';
import { Session } from '../../api/session';
import { UsageEntry } from '../../api/types';
import { ErrorNote } from '../../components/ErrorNote';
import { download, filenameOf } from '../../lib/download';
import { formatDate } from '../../lib/money';
import { messageOf, useApi } from '../../lib/use-api';

const PAGE_SIZE = 25;

/** GET /billing/usage-history, a page at a time (cursor walk), and its CSV export. */
export function UsageHistory({ session, refresh }: { session: Session; refresh: number }) {
  // cursors[i] is the cursor of page i+1 (page 1 has none).
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [exportError, setExportError] = useState<string>();
  const cursor = cursors[cursors.length - 1];
  const page = useApi(
    async (signal) => {
      const { data, headers } = await callJson<{ data: UsageEntry[]; nextCursor: string | null }>('/billing/usage-history', {
        key: session.key,
        query: cursor ? { cursor } : { pageSize: PAGE_SIZE },
        signal,
      });
      return { ...data, total: headers.get('x-pagination-total') };
    },
    [session.key, cursor, refresh],
  );
  const exportCsv = async () => {
    setExportError(undefined);
    try {
      const response = await call('/billing/usage-history', { key: session.key, accept: 'text/csv', query: { pageSize: 1000 } });
      download(await response.blob(), filenameOf(response.headers.get('content-disposition'), 'usage-history.csv'));
    } catch (err) {
      setExportError(messageOf(err));
    }
  };
  const p = page.data;
  return (
    <section aria-labelledby="history-title" className="card">
      <h2 id="history-title">Usage history</h2>
      <button type="button" onClick={() => void exportCsv()}>
        Export CSV
      </button>
      <ErrorNote message={exportError ?? page.error} />
      {p && (
        <div className="table-wrap">
          <table>
            <caption>
              Page {cursors.length}
              {p.total ? ` of ${Math.ceil(Number(p.total) / PAGE_SIZE)} (${p.total} lines)` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">SKU</th>
                <th scope="col">Units</th>
                <th scope="col">Amount</th>
                <th scope="col">Request</th>
              </tr>
            </thead>
            <tbody>
              {p.data.map((e, i) => (
                <tr key={`${e.timestamp}-${e.sku}-${i}`}>
                  <td>{formatDate(e.timestamp)}</td>
                  <td>{e.sku}</td>
                  <td>{e.units}</td>
                  <td>
                    {e.amount} {e.currency}
                  </td>
                  <td>
                    <code>{e.inferenceDetails?.requestId ?? '—'}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav aria-label="Usage history pages" className="actions">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Previous page
        </button>
        <button type="button" disabled={!p?.nextCursor} onClick={() => p?.nextCursor && setCursors((c) => [...c, p.nextCursor!])}>
          Next page
        </button>
      </nav>
    </section>
  );
}
