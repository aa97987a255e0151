import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Logger } from '@svc/logging';
import { gaugeSource } from '@svc/messaging';
import { BILLING_CONFIG, BillingConfig } from '../config';
import { ReservationsRepository } from '../reservations/reservations.repository';
import { ReservationsService } from '../reservations/reservations.service';
import { BILLING_LOGGER } from '../shared/logger.token';
import { LeaseSweeper } from './lease.sweeper';
import { errorMessage } from '@svc/errors';

export interface SweepResult {
  released: number;
  settled: number;
  /** Another replica or a settlement got there first. */
  skipped: number;
  failed: number;
  /** Credit leases past their expiry plus grace whose hold was returned (see LeaseSweeper). */
  expiredLeases: number;
}

/**
 * Finalizes holds whose request died (service crash, lost settlement): releases them, or charges
 * the gateway's count of a cut stream. Every replica sweeps; claims use SKIP LOCKED plus a lease,
 * and finalizing is idempotent, so replicas never double-release. One sweep stops after its
 * time budget (the interval), leaving the rest for the next round: bounded work per tick. Each
 * round also returns the holds of expired credit leases (LeaseSweeper).
 */
@Injectable()
export class ReservationSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<SweepResult> | null = null;
  private unwatch: (() => void)[] = [];

  constructor(
    private readonly reservations: ReservationsRepository,
    private readonly service: ReservationsService,
    private readonly leases: LeaseSweeper,
    @Inject(BILLING_CONFIG) private readonly config: Pick<BillingConfig, 'BILLING_SWEEP_INTERVAL_MS' | 'BILLING_SWEEP_BATCH'>,
    @Inject(BILLING_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.BILLING_SWEEP_INTERVAL_MS);
    this.timer.unref();
    // The backlog as metrics (docs/operations.md, "Metrics"; the BillingSweeperBacklog alert): one query per scrape.
    let backlog: Promise<{ holds: number; oldestSeconds: number }> | null = null;
    const read = () => (backlog ??= this.reservations.expiredBacklog().finally(() => setImmediate(() => (backlog = null))));
    this.unwatch = [
      gaugeSource('svc_billing_expired_holds', 'Credit holds past their expiry that the sweeper has not finalized yet.', [], async () => [
        { labels: {}, value: (await read()).holds },
      ]),
      gaugeSource('svc_billing_oldest_expired_hold_seconds', 'Seconds since the oldest unfinalized expired hold expired (0 when none).', [], async () => [
        { labels: {}, value: (await read()).oldestSeconds },
      ]),
    ];
  }

  async onModuleDestroy(): Promise<void> {
    for (const stop of this.unwatch) stop();
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One sweep; concurrent calls share it. */
  sweep(): Promise<SweepResult> {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(): Promise<SweepResult> {
    const result: SweepResult = { released: 0, settled: 0, skipped: 0, failed: 0, expiredLeases: 0 };
    const deadline = Date.now() + this.config.BILLING_SWEEP_INTERVAL_MS;
    const lease = Math.max(60_000, this.config.BILLING_SWEEP_INTERVAL_MS * 4);
    try {
      for (;;) {
        const batch = await this.reservations.claimExpired(this.config.BILLING_SWEEP_BATCH, lease);
        for (const reservation of batch) {
          try {
            const outcome = await this.service.finalizeExpired(reservation);
            if (outcome.status === 'settled') result.settled++;
            else if (outcome.status === 'released') result.released++;
            else result.skipped++;
          } catch (err) {
            result.failed++;
            this.logger.error({ reservationId: reservation.id, err: errorMessage(err) }, 'could not finalize an expired reservation; retried after its lease');
          }
        }
        if (batch.length < this.config.BILLING_SWEEP_BATCH || Date.now() >= deadline) break;
      }
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'reservation sweep failed; next round retries');
    }
    try {
      const leases = await this.leases.sweep(deadline, lease);
      result.expiredLeases = leases.expired;
      result.failed += leases.failed;
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'credit lease sweep failed; next round retries');
    }
    if (result.released + result.settled + result.failed + result.expiredLeases > 0) this.logger.info({ ...result }, 'expired reservations finalized');
    return result;
  }
}
