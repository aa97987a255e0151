/**
 * The requests of each account this gateway admitted and that have not ended yet, and a way to
 * wait for the next of them to end: a request refused at the margin while others of its account
 * run here may fit once one of them has settled for less than it held (docs/billing.md, "Exact at
 * the margin"). Local to the replica: another replica's requests are not seen.
 */
export class RunningAccounts {
  private readonly accounts = new Map<string, { running: number; waiters: Set<() => void> }>();

  /** Counts one request of `account` as running; the returned function ends it (once). */
  begin(account: string): () => void {
    const entry = this.entry(account);
    entry.running++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.running--;
      const waiters = [...entry.waiters];
      entry.waiters.clear();
      if (entry.running === 0) this.accounts.delete(account);
      for (const wake of waiters) wake();
    };
  }

  running(account: string): number {
    return this.accounts.get(account)?.running ?? 0;
  }

  /** Resolves when a running request of `account` ends, or after `timeoutMs`. */
  nextEnd(account: string, timeoutMs: number): Promise<void> {
    const entry = this.entry(account);
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      function done() {
        clearTimeout(timer);
        entry.waiters.delete(done);
        resolve();
      }
      entry.waiters.add(done);
    });
  }

  private entry(account: string) {
    let entry = this.accounts.get(account);
    if (!entry) this.accounts.set(account, (entry = { running: 0, waiters: new Set() }));
    return entry;
  }
}
