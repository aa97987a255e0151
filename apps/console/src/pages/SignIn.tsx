import { FormEvent, useState } from 'react';
import { ApiError, call } from '../api/client';
import { saveSession, Session } from '../api/session';
import { ErrorNote } from '../components/ErrorNote';
import { useAction } from '../lib/use-action';

/**
 * Sign in with an API key. The key's type is found by asking the API: an ADMIN key may list
 * keys; an INFERENCE key is refused that (403) but may read its own limits.
 */
export async function identify(key: string): Promise<Session> {
  try {
    await call('/api_keys', { key });
    return { key, type: 'ADMIN' };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 403) throw err;
  }
  await call('/api_keys/rate_limits', { key });
  return { key, type: 'INFERENCE' };
}

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const { busy, error, run } = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const session = await identify(key.trim());
      saveSession(session);
      onSignedIn(session);
    });
  };
  return (
    <main className="signin">
      <h1>Admin console</h1>
      <form onSubmit={submit}>
        <label htmlFor="api-key">API key</label>
        <input id="api-key" type="password" autoComplete="off" required value={key} onChange={(e) => setKey(e.target.value)} />
        <p className="hint">
          An ADMIN key manages keys, credits and characters; an INFERENCE key sees the playground and its own limits. The key stays in this tab only (session
          storage) and is sent to this server's API alone.
        </p>
        <button type="submit" disabled={busy || !key.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorNote message={error} />
      </form>
    </main>
  );
}
