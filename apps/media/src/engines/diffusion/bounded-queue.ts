import { DomainError, ErrorCode } from '@svc/errors';

/**
 * At most `slots` jobs at a time and at most `maxQueue` waiting; beyond that `run` fails at once
 * with ServiceUnavailable (503), so overload becomes a fast, clear error instead of latency.
 */
export class BoundedQueue {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly slots: number,
    private readonly maxQueue: number,
    private readonly what: string,
  ) {}

  stats(): { running: number; queued: number } {
    return { running: this.active, queued: this.waiting.length };
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.active >= this.slots) {
      if (this.waiting.length >= this.maxQueue) {
        throw new DomainError(ErrorCode.ServiceUnavailable, `${this.what} is busy: ${this.waiting.length} requests are already queued. Retry later.`);
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
