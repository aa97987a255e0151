import { Logger } from '@nestjs/common';
import { BILLING } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';

const ATTEMPT_TIMEOUT_MS = 2_000;
const FAST_RETRY_MS = 250;
const FAST_RETRY_FOR_MS = 30_000;
const SLOW_RETRY_MAX_MS = 30_000;

/**
 * Asks billing to credit the bootstrap account with SVC_BOOTSTRAP_CREDITS_USD (billing applies it
 * once ever, so asking again at every boot is harmless). Billing may start after this service:
 * `request` waits up to `waitMs` for it, then keeps asking in the background until it answers.
 */
export class BootstrapCredit {
  private readonly logger = new Logger('BootstrapCredit');
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly rpc: RpcClient) {}

  async request(accountId: string, waitMs: number): Promise<void> {
    const started = Date.now();
    const deadline = started + waitMs;
    for (;;) {
      if (await this.attempt(accountId)) return;
      if (this.stopped || Date.now() + FAST_RETRY_MS > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, FAST_RETRY_MS));
    }
    this.logger.warn('billing did not answer yet; the bootstrap credit will be requested again in the background');
    this.retryLater(accountId, started, 1);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private retryLater(accountId: string, started: number, attempt: number): void {
    if (this.stopped) return;
    const delay = Date.now() - started < FAST_RETRY_FOR_MS ? FAST_RETRY_MS : Math.min(SLOW_RETRY_MAX_MS, 1_000 * 2 ** Math.min(attempt, 5));
    this.timer = setTimeout(() => {
      void this.attempt(accountId).then((done) => done || this.retryLater(accountId, started, attempt + 1));
    }, delay);
    this.timer.unref();
  }

  private async attempt(accountId: string): Promise<boolean> {
    try {
      const reply = await this.rpc.send(BILLING.BOOTSTRAP_CREDIT, { accountId }, { timeoutMs: ATTEMPT_TIMEOUT_MS });
      this.logger.log(reply.credited ? 'billing credited the bootstrap account (SVC_BOOTSTRAP_CREDITS_USD)' : 'bootstrap credit already applied earlier');
      return true;
    } catch {
      return false;
    }
  }
}
