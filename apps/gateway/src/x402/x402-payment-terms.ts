import { Injectable } from '@nestjs/common';
import { X402, X402PaymentTermsReply } from '@svc/contracts';
import { QUICK_CALL_IDLE_MS, RpcClient } from '@svc/messaging';

/** The terms change only with the wallet service's configuration (a restart): a short cache spares a round trip per 402. */
const TERMS_TTL_MS = 30_000;
const TERMS_TIMEOUT_MS = 2_000;

/**
 * The wallet service's payment terms (X402.PAYMENT_TERMS: the top-up `accepts` and the SIWX
 * rules), cached briefly; concurrent callers share one call, and a failure is not kept.
 */
@Injectable()
export class X402PaymentTerms {
  private cached: { at: number; terms: Promise<X402PaymentTermsReply> } | null = null;

  constructor(private readonly rpc: RpcClient) {}

  get(requestId: string, now = Date.now()): Promise<X402PaymentTermsReply> {
    if (this.cached && now - this.cached.at < TERMS_TTL_MS) return this.cached.terms;
    const terms = this.rpc.send(X402.PAYMENT_TERMS, { requestId }, { requestId, timeoutMs: TERMS_TIMEOUT_MS, idleTimeoutMs: QUICK_CALL_IDLE_MS });
    const entry = { at: now, terms };
    this.cached = entry;
    terms.catch(() => {
      if (this.cached === entry) this.cached = null;
    });
    return terms;
  }
}
