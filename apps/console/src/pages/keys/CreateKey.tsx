import { FormEvent, useState } from 'react';
import { callJson } from '../../api/client';
import { Session } from '../../api/session';
import { CreatedKey } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { ErrorNote } from '../../components/ErrorNote';
import { useAction } from '../../lib/use-action';
import { KeyFields, KeyFieldValues, toBody } from './KeyFields';

const EMPTY: KeyFieldValues = { description: '', expiresAt: '', limitUsd: '', limitDiem: '', limitPeriod: 'EPOCH' };

/** Creates a key and shows its secret once, with a copy button. */
export function CreateKey({ session, onCreated }: { session: Session; onCreated: () => void }) {
  const [values, setValues] = useState(EMPTY);
  const [type, setType] = useState<'INFERENCE' | 'ADMIN'>('INFERENCE');
  const [created, setCreated] = useState<CreatedKey>();
  const { busy, error, run } = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const { data } = await callJson<{ data: CreatedKey }>('/api_keys', { key: session.key, method: 'POST', body: { apiKeyType: type, ...toBody(values) } });
      setCreated(data.data);
      setValues(EMPTY);
      onCreated();
    });
  };
  return (
    <section aria-labelledby="create-key-title" className="card">
      <h2 id="create-key-title">Create a key</h2>
      <form onSubmit={submit}>
        <KeyFields idPrefix="new-key" values={values} onChange={setValues} />
        <fieldset>
          <legend>Type</legend>
          {(['INFERENCE', 'ADMIN'] as const).map((t) => (
            <label key={t} className="inline">
              <input type="radio" name="new-key-type" value={t} checked={type === t} onChange={() => setType(t)} /> {t === 'ADMIN' ? 'Admin' : 'Inference'}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={busy}>
          Create key
        </button>
        <ErrorNote message={error} />
      </form>
      {created && (
        <div className="secret" role="status">
          <p>
            Key <strong>{created.description}</strong> created. Copy its secret now: it is not shown again.
          </p>
          <code data-testid="new-key-secret">{created.apiKey}</code> <CopyButton text={created.apiKey} label="Copy secret" />
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      )}
    </section>
  );
}
