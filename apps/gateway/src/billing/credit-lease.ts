import { BillingCurrency, NanoAmounts } from '@svc/contracts';

/**
 * This replica's view of one credit lease: a block of an account's credit (and of a limited key's
 * window) that billing holds for it. A request takes its whole hold from the block and never gives
 * it back here: what a request did not spend returns to the account when the lease closes, so a
 * lease can never admit more than billing holds, whatever the services charge.
 */
export class CreditLease {
  private remaining: bigint;
  /** Requests admitted, and the sum of their holds: what the close reports. */
  admitted = 0;
  admittedNano = 0n;
  /** Admitted requests that have not ended yet (the close waits for them). */
  inFlight = 0;
  lastUsedAt = Date.now();
  retired = false;

  constructor(
    readonly id: string,
    readonly currency: BillingCurrency,
    readonly grantedNano: bigint,
    /** Available balances just before the grant (the grant included). */
    private readonly balancesBefore: NanoAmounts,
    /** Epoch ms after which it admits nothing. */
    readonly admitUntil: number,
  ) {
    this.remaining = grantedNano;
  }

  /** Takes `hold` for one request; false when the block cannot cover it or admission time is over. */
  take(hold: bigint, now: number): boolean {
    if (this.retired || now >= this.admitUntil || hold > this.remaining) return false;
    this.remaining -= hold;
    this.admitted++;
    this.admittedNano += hold;
    this.inFlight++;
    this.lastUsedAt = now;
    return true;
  }

  /** One admitted request ended; true when the lease is retired and now idle, i.e. ready to close. */
  end(): boolean {
    this.inFlight--;
    return this.retired && this.inFlight === 0;
  }

  /** Less than half left: time to ask for the next one before this one runs dry. */
  get low(): boolean {
    return this.remaining * 2n < this.grantedNano;
  }

  /**
   * The balances a request admitted now sees: as billing had them at the grant, minus what this
   * lease has admitted since. Other replicas' use is not seen, so at most one lease stale.
   */
  balancesNow(): NanoAmounts {
    const own = BigInt(this.balancesBefore[this.currency === 'USD' ? 'usd' : 'diem']) - this.admittedNano;
    return this.currency === 'USD' ? { usd: own.toString(), diem: this.balancesBefore.diem } : { usd: this.balancesBefore.usd, diem: own.toString() };
  }
}
