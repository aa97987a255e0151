import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Logger } from '@svc/logging';
import { StoredPayment, TopUpService } from './top-up.service';
import { X402BillingClient } from './x402-billing.client';
import { X402_CONFIG, X402_LOGGER, X402Config } from './x402-config.type';

const BATCH = 50;

/**
 * Finishes payments a restart interrupted: SETTLED ones are credited (once, by billing's rule);
 * PENDING ones (settle sent, no answer recorded) go to the facilitator again. At boot, then every
 * X402_RESUME_AFTER_MS.
 */
@Injectable()
export class X402Resumer implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly billing: X402BillingClient,
    private readonly topUps: TopUpService,
    @Inject(X402_CONFIG) private readonly config: X402Config,
    @Inject(X402_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const tick = () => void this.resume().catch((error: Error) => this.logger.warn({ err: error.message }, 'x402 resume pass failed'));
    this.timer = setInterval(tick, this.config.X402_RESUME_AFTER_MS);
    this.timer.unref();
    setImmediate(tick);
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** One pass; returns how many payments it credited. */
  async resume(olderThanMs = this.config.X402_RESUME_AFTER_MS): Promise<number> {
    let credited = 0;
    for (const p of await this.billing.unfinished(olderThanMs, BATCH)) {
      try {
        if (p.status === 'SETTLED') {
          if ((await this.billing.credit(p.reference)).status === 'applied') credited += 1;
        } else if (this.config.X402_FACILITATOR_URL) {
          await this.topUps.settleAndCredit(p.reference, p.payment as StoredPayment);
          credited += 1;
        }
      } catch (error) {
        this.logger.warn({ reference: p.reference, err: (error as Error).message }, 'x402 payment not resumed');
      }
    }
    return credited;
  }
}
