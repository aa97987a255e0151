import { DomainError, ErrorCode } from '@svc/errors';
import { abortError } from './engine-errors';

interface Waiter {
  grant: (release: () => void) => void;
  reject: (err: Error) => void;
}

/**
 * At most `slots` holders at a time, then a FIFO queue of at most `maxQueue` waiters; beyond that
 * acquire() fails at once, so overload turns into fast errors instead of unbounded latency.
 */
export class SlotQueue {
  private active = 0;
  private readonly waiters: Waiter[] = [];

  constructor(
    private readonly slots: number,
    private readonly maxQueue: number,
  ) {}

  stats(): { running: number; queued: number } {
    return { running: this.active, queued: this.waiters.length };
  }

  /** Resolves with a release function (call it exactly once; extra calls are ignored). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (this.active < this.slots) return Promise.resolve(this.grant());
    if (this.waiters.length >= this.maxQueue) {
      return Promise.reject(
        new DomainError(ErrorCode.ServiceUnavailable, `The embedded model is busy: ${this.waiters.length} requests are already queued. Retry later.`),
      );
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i !== -1) this.waiters.splice(i, 1);
        reject(abortError(signal));
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Fails every waiter (used on close). Holders keep their slots until they release. */
  rejectAll(err: Error): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(err);
  }

  private grant(): () => void {
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      const next = this.waiters.shift();
      if (next) next.grant(this.grant());
    };
  }
}
