import { callJson } from '../api/client';
import { Session } from '../api/session';
import { RateLimitHit, RateLimits } from '../api/types';
import { ErrorNote } from '../components/ErrorNote';
import { formatDate } from '../lib/money';
import { useApi } from '../lib/use-api';

const amountOf = (limits: RateLimits['rateLimits'][number]['rateLimits'], type: string) => limits.find((l) => l.type === type)?.amount ?? '—';

/** The caller's rate limits per model (any key) and the account's rate-limit log (ADMIN). */
export function LimitsPage({ session }: { session: Session }) {
  const limits = useApi(
    async (signal) => (await callJson<{ data: RateLimits }>('/api_keys/rate_limits', { key: session.key, signal })).data.data,
    [session.key],
  );
  const log = useApi(
    async (signal) =>
      session.type === 'ADMIN' ? (await callJson<{ data: RateLimitHit[] }>('/api_keys/rate_limits/log', { key: session.key, signal })).data.data : [],
    [session.key],
  );
  const l = limits.data;
  return (
    <>
      <section aria-labelledby="limits-title" className="card">
        <h2 id="limits-title">Rate limits of this key</h2>
        <ErrorNote message={limits.error} />
        {l && (
          <>
            <dl className="key-facts">
              <dt>Tier</dt>
              <dd>{l.apiTier.id}</dd>
              <dt>Key expires</dt>
              <dd>{formatDate(l.keyExpiration)}</dd>
              <dt>Daily limits reset</dt>
              <dd>{formatDate(l.nextEpochBegins)}</dd>
            </dl>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Model</th>
                    <th scope="col">Requests per minute</th>
                    <th scope="col">Requests per day</th>
                    <th scope="col">Tokens per minute</th>
                  </tr>
                </thead>
                <tbody>
                  {l.rateLimits.map((m) => (
                    <tr key={m.apiModelId}>
                      <th scope="row">{m.apiModelId}</th>
                      <td>{amountOf(m.rateLimits, 'RPM')}</td>
                      <td>{amountOf(m.rateLimits, 'RPD')}</td>
                      <td>{amountOf(m.rateLimits, 'TPM')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </section>
      {session.type === 'ADMIN' && (
        <section aria-labelledby="log-title" className="card">
          <h2 id="log-title">Rate-limit log</h2>
          <ErrorNote message={log.error} />
          {log.data?.length === 0 && <p className="hint">No request of this account was rate limited recently.</p>}
          {!!log.data?.length && (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Model</th>
                    <th scope="col">Limit</th>
                    <th scope="col">Tier</th>
                    <th scope="col">Key</th>
                  </tr>
                </thead>
                <tbody>
                  {log.data.map((h, i) => (
                    <tr key={`${h.timestamp}-${i}`}>
                      <td>{formatDate(h.timestamp)}</td>
                      <td>{h.modelId}</td>
                      <td>{h.rateLimitType}</td>
                      <td>{h.rateLimitTier}</td>
                      <td>
                        <code>{h.apiKeyId.slice(0, 8)}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </>
  );
}
