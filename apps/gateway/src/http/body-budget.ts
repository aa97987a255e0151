/** Bodies up to this size may use the small-body reserve on top of the budget. */
export const SMALL_BODY_BYTES = 1024 * 1024;
/** What small bodies may hold past the budget, so ordinary API calls get through while large uploads fill it. */
export const SMALL_BODY_RESERVE_BYTES = 16 * 1024 * 1024;

/**
 * The bytes of request bodies one gateway process holds at once, across all requests (issue 28:
 * twelve concurrent 39 MB bodies took the gateway to 1.5 GB). A request holds what its
 * Content-Length declares, or what has arrived of a body without one, until its response ends.
 * A body over SMALL_BODY_BYTES fits only under `capacity`; a smaller one also fits in the
 * reserve above it, so one client's large uploads never starve everyone's chat calls.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly capacity: number) {}

  get inUse(): number {
    return this.used;
  }

  /** A hold of nothing yet, for one request. */
  open(): BodyHold {
    return new BodyHold(this);
  }

  /** Takes `more` bytes for a body that will then hold `total`; false (nothing taken) when they do not fit. */
  take(more: number, total: number): boolean {
    const ceiling = total > SMALL_BODY_BYTES ? this.capacity : this.capacity + SMALL_BODY_RESERVE_BYTES;
    if (this.used + more > ceiling) return false;
    this.used += more;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** One request's share of the budget: grows as its body arrives, given back once. */
export class BodyHold {
  private held = 0;
  private released = false;

  constructor(private readonly budget: BodyBudget) {}

  get bytes(): number {
    return this.held;
  }

  /** Grows the hold to `total` bytes; false (unchanged) when the budget cannot take them. */
  grow(total: number): boolean {
    if (this.released) return false;
    if (total <= this.held) return true;
    if (!this.budget.take(total - this.held, total)) return false;
    this.held = total;
    return true;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.give(this.held);
    this.held = 0;
  }
}
