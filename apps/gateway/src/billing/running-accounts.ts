/** How long after an account's last request here ended a refusal is retried: its settlement reaches billing in the background. */
const RECENT_MS = 2_000;

/**
 * The requests of each account (and of each key with a consumption limit, as `key:<id>`) this gateway admitted and that have not ended yet, and a way to
 * wait for the next of them to end: a request refused at the margin while others of its account
 * run here may fit once one of them has settled for less than it held (docs/billing.md, "Exact at
 * the margin"). Local to the replica: another replica's requests are not seen.
 */
export class RunningAccounts {
  private readonly accounts = new Map<string, { running: number; waiters: Set<() => void> }>();
  /** When the last running request of an account ended (accounts with none running), pruned past RECENT_MS. */
  private readonly lastEnded = new Map<string, number>();

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
      if (entry.running === 0) {
        this.accounts.delete(account);
        this.noteEnded(account);
      }
      for (const wake of waiters) wake();
    };
  }

  running(account: string): number {
    return this.accounts.get(account)?.running ?? 0;
  }

  /** Whether the last request of `account` that ran here ended less than RECENT_MS ago (its settlement may still be on its way). */
  endedRecently(account: string): boolean {
    const at = this.lastEnded.get(account);
    return at !== undefined && Date.now() - at < RECENT_MS;
  }

  private noteEnded(account: string): void {
    const now = Date.now();
    this.lastEnded.delete(account);
    this.lastEnded.set(account, now);
    // Oldest first (insertion order): drop what is past the window.
    for (const [name, at] of this.lastEnded) {
      if (now - at < RECENT_MS) break;
      this.lastEnded.delete(name);
    }
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
