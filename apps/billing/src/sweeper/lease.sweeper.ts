import { Inject, Injectable } from '@nestjs/common';
import { Logger } from '@svc/logging';
import { BILLING_CONFIG, BillingConfig } from '../config';
import { LeasesRepository } from '../leases/leases.repository';
import { BILLING_LOGGER } from '../shared/logger.token';
import { errorMessage } from '@svc/errors';

export interface LeaseSweepResult {
  /** Leases past their expiry plus the settle grace that returned what they still held. */
  expired: number;
  failed: number;
}

/**
 * Returns the credit of leases whose gateway never closed them (it died) or whose requests never
 * all settled (a service died, settlements were lost): once a lease is past its expiry plus the
 * settle grace, what it still holds goes back to the account and it is CLOSED. Runs as part of
 * each ReservationSweeper round; claims use SKIP LOCKED plus a claim lease, like reservations.
 */
@Injectable()
export class LeaseSweeper {
  constructor(
    private readonly leases: LeasesRepository,
    @Inject(BILLING_CONFIG) private readonly config: Pick<BillingConfig, 'BILLING_SETTLE_GRACE_MS' | 'BILLING_SWEEP_BATCH'>,
    @Inject(BILLING_LOGGER) private readonly logger: Logger,
  ) {}

  /** Sweeps until nothing is due or `deadline` (epoch ms) has passed; a claim lasts `claimMs`. */
  async sweep(deadline: number, claimMs: number): Promise<LeaseSweepResult> {
    const result: LeaseSweepResult = { expired: 0, failed: 0 };
    const grace = this.config.BILLING_SETTLE_GRACE_MS;
    for (;;) {
      const ids = await this.leases.claimExpired(this.config.BILLING_SWEEP_BATCH, grace, claimMs);
      for (const leaseId of ids) {
        try {
          const expired = await this.leases.expire(leaseId, grace);
          if (expired.status !== 'expired') continue;
          result.expired++;
          const unsettled = expired.admitted === null ? null : Math.max(expired.admitted - expired.settled, 0);
          this.logger.warn(
            { leaseId, released: expired.released.toString(), settled: expired.settled, admitted: expired.admitted, unsettled },
            expired.admitted === null
              ? 'credit lease expired without being closed (its gateway died?): returned what it still held'
              : `credit lease expired with ${unsettled} request(s) never settled (lost settlements?): returned what it still held`,
          );
        } catch (err) {
          result.failed++;
          this.logger.error({ leaseId, err: errorMessage(err) }, 'could not return an expired credit lease; retried after its claim');
        }
      }
      if (ids.length < this.config.BILLING_SWEEP_BATCH || Date.now() >= deadline) break;
    }
    return result;
  }
}
