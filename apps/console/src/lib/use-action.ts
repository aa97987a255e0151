import { useCallback, useState } from 'react';
import { messageOf } from './use-api';

/**
 * A user action that calls the API: `busy` while it runs, `error` the API's message when it
 * failed (cleared at the next run). `run(work)` never throws.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
