export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses requests before one trial request is let through. */
  cooldownMs: number;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * Per-endpoint circuit breaker: `failureThreshold` consecutive failures open it; after
 * `cooldownMs` one trial request goes through (half-open); its success closes the circuit,
 * its failure opens it again for another cooldown.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | undefined;
  private trialInFlight = false;

  constructor(
    private readonly options: CircuitBreakerOptions,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): CircuitState {
    if (this.openedAt === undefined) return 'closed';
    return this.now() - this.openedAt >= this.options.cooldownMs ? 'half-open' : 'open';
  }

  /** Whether a request may go to this endpoint now (takes the half-open trial slot). */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  /** Whether tryAcquire would succeed, without taking the trial slot. */
  get available(): boolean {
    const state = this.state;
    return state === 'closed' || (state === 'half-open' && !this.trialInFlight);
  }

  success(): void {
    this.failures = 0;
    this.openedAt = undefined;
    this.trialInFlight = false;
  }

  /** The request ended without a verdict (the caller went away): free the trial slot. */
  cancel(): void {
    this.trialInFlight = false;
  }

  failure(): void {
    this.failures++;
    const wasTrial = this.trialInFlight;
    this.trialInFlight = false;
    if (wasTrial || this.failures >= this.options.failureThreshold) this.openedAt = this.now();
  }
}
