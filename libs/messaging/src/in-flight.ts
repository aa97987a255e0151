/**
 * Work a process has accepted and not finished: request handlers running, token streams open.
 * A graceful shutdown stops taking new work, then waits here (within its bound) for the rest.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.count;
  }

  /** Counts one piece of work; call the returned function once when it ends (extra calls are ignored). */
  begin(): () => void {
    this.count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.count > 0) return;
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    };
  }

  /** Resolves true once nothing is in flight, or false when `timeoutMs` passes first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

/** The process's one tracker: SvcNatsServer counts handlers, StreamPublisher counts open streams. */
export const inFlight = new InFlight();
