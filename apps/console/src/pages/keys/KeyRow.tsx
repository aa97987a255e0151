import { FormEvent, useState } from 'react';
import { callJson } from '../../api/client';
import { Session } from '../../api/session';
import { ApiKey } from '../../api/types';
import { Confirm } from '../../components/Confirm';
import { ErrorNote } from '../../components/ErrorNote';
import { formatDate } from '../../lib/money';
import { messageOf } from '../../lib/use-api';
import { KeyFields, KeyFieldValues, PERIODS, toBody } from './KeyFields';

const limitText = (k: ApiKey) =>
  [k.consumptionLimits.usd !== null && `${k.consumptionLimits.usd} USD`, k.consumptionLimits.diem !== null && `${k.consumptionLimits.diem} DIEM`]
    .filter(Boolean)
    .join(', ') || 'none';

const valuesOf = (k: ApiKey): KeyFieldValues => ({
  description: k.description,
  expiresAt: k.expiresAt ? k.expiresAt.slice(0, 10) : '',
  limitUsd: k.consumptionLimits.usd?.toString() ?? '',
  limitDiem: k.consumptionLimits.diem?.toString() ?? '',
  limitPeriod: k.limitPeriod,
});

/** One key: its fields and 7-day usage, edit in place, revoke after a confirmation. */
export function KeyRow({ apiKey, session, onChanged }: { apiKey: ApiKey; session: Session; onChanged: () => void }) {
  const [mode, setMode] = useState<'view' | 'edit' | 'revoke'>('view');
  const [values, setValues] = useState(() => valuesOf(apiKey));
  const [error, setError] = useState<string>();
  const run = async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
      setMode('view');
      onChanged();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const save = (e: FormEvent) => {
    e.preventDefault();
    void run(() => callJson('/api_keys', { key: session.key, method: 'PATCH', body: { id: apiKey.id, ...toBody(values) } }));
  };
  const revoke = () => void run(() => callJson('/api_keys', { key: session.key, method: 'DELETE', query: { id: apiKey.id } }));
  const week = apiKey.usage?.trailingSevenDays;
  return (
    <li className="key card" aria-label={`Key ${apiKey.description}`}>
      <div className="key-head">
        <strong>{apiKey.description}</strong> <span className="badge">{apiKey.apiKeyType}</span> <code>…{apiKey.last6Chars}</code>
      </div>
      <dl className="key-facts">
        <dt>Created</dt>
        <dd>{formatDate(apiKey.createdAt)}</dd>
        <dt>Expires</dt>
        <dd>{formatDate(apiKey.expiresAt)}</dd>
        <dt>Limit</dt>
        <dd>
          {limitText(apiKey)} ({PERIODS.find((p) => p.value === apiKey.limitPeriod)?.label ?? apiKey.limitPeriod})
        </dd>
        <dt>Last 7 days</dt>
        <dd data-testid="key-week-usage">{week ? `${week.usd} USD, ${week.diem} DIEM` : '—'}</dd>
      </dl>
      {mode === 'view' && (
        <div className="actions">
          <button type="button" onClick={() => setMode('edit')}>
            Edit
          </button>
          <button type="button" className="danger" onClick={() => setMode('revoke')}>
            Revoke
          </button>
        </div>
      )}
      {mode === 'edit' && (
        <form onSubmit={save}>
          <KeyFields idPrefix={`key-${apiKey.id}`} values={values} onChange={setValues} />
          <button type="submit">Save</button>
          <button type="button" onClick={() => setMode('view')}>
            Cancel
          </button>
        </form>
      )}
      {mode === 'revoke' && (
        <Confirm
          message={`Revoke "${apiKey.description}"? Requests with it will be refused at once.`}
          confirmLabel="Revoke key"
          onConfirm={revoke}
          onCancel={() => setMode('view')}
        />
      )}
      <ErrorNote message={error} />
    </li>
  );
}
