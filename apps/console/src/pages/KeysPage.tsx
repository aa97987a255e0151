import { callJson } from '../api/client';
import { Session } from '../api/session';
import { ApiKey } from '../api/types';
import { ErrorNote } from '../components/ErrorNote';
import { useApi } from '../lib/use-api';
import { CreateKey } from './keys/CreateKey';
import { KeyRow } from './keys/KeyRow';

export function KeysPage({ session }: { session: Session }) {
  const keys = useApi(async (signal) => (await callJson<{ data: ApiKey[] }>('/api_keys', { key: session.key, signal })).data.data, [session.key]);
  return (
    <>
      <CreateKey session={session} onCreated={keys.reload} />
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <ErrorNote message={keys.error} />
        {keys.loading && !keys.data && <p aria-live="polite">Loading…</p>}
        <ul className="keys">
          {keys.data?.map((k) => (
            <KeyRow
              key={`${k.id}-${k.description}-${k.expiresAt}-${k.limitPeriod}-${k.consumptionLimits.usd}-${k.consumptionLimits.diem}`}
              apiKey={k}
              session={session}
              onChanged={keys.reload}
            />
          ))}
        </ul>
      </section>
    </>
  );
}
