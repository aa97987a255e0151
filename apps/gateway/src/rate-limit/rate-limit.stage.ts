import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { Logger } from '@svc/logging';
import { AdmissionRequest, AdmissionStage, AdmissionTicket, limitTokensOf, UsageReport } from '../admission/admission.types';
import { BillableUsage } from '@svc/contracts';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { GATEWAY_LOGGER } from '../logger.token';
import { GatewayMetrics, NO_METRICS } from '../metrics/gateway-metrics';
import { AdmissionGate, FoldableCheck } from './admission-gate';
import { limitPlan } from './limit-plan';
import { typeOfDenial } from './limiter.types';
import { rateLimitHeaders } from './rate-limit-headers';
import { denialMessage } from './rate-limit-messages';
import { Counted, RateLimiter } from './rate-limiter';
import { ReplyHeadersStore } from './reply-headers.store';

/** Tokens a finished request used. A cut stream reports no prompt count, but the prompt was read: count the estimate. */
export function tokensUsed(usage: UsageReport, worstCase: BillableUsage): number {
  const estimatedPrompt = worstCase.kind === 'text' ? worstCase.promptTokens : 0;
  const prompt = usage.cut && usage.promptTokens === 0 ? estimatedPrompt : usage.promptTokens;
  return prompt + usage.completionTokens;
}

/**
 * Requests per minute, tokens per minute and requests per day, per model, for the account, the
 * key (when it carries its own limits) and everyone (when global limits are configured), shared
 * by every gateway replica through Redis. Admission reserves the prompt plus the requested
 * maximum; settlement corrects to the actual tokens, or releases the request when nothing was
 * produced (including a refusal by a later admission stage).
 */
@Injectable()
export class RateLimitStage implements AdmissionStage {
  readonly name = 'rate-limit';

  constructor(
    private readonly limiter: RateLimiter,
    private readonly replyHeaders: ReplyHeadersStore,
    private readonly gate: AdmissionGate,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    @Optional() private readonly metrics: GatewayMetrics = NO_METRICS,
  ) {}

  async admit(request: AdmissionRequest): Promise<AdmissionTicket> {
    const { key, model, worstCase, requestId } = request;
    if (!this.config.RATE_LIMITS_ENABLED) {
      await this.gate.pass(requestId);
      return { headers: {}, settle: async () => undefined };
    }
    const check = await this.gate.passUnlessFoldable(requestId);
    const plan = limitPlan(key, model, this.config.RATE_LIMIT_GLOBAL_JSON);
    const cost = limitTokensOf(worstCase);
    const counted = await this.limiter.admit(
      plan.buckets,
      requestId,
      cost,
      { accountId: key.accountId, apiKeyId: key.id, modelId: model.id, apiTier: plan.apiTier },
      check?.blockKey,
      check?.leasable ?? true,
    );
    if (check) await this.enforceFolded(requestId, check, counted);
    const headers = rateLimitHeaders(counted.buckets, counted.decision, this.config.RATE_LIMIT_WINDOW_MS);
    const { denial, now } = counted.decision;
    if (denial) {
      this.replyHeaders.set(requestId, headers);
      const bucket = counted.buckets[denial.bucket];
      this.logger.info(
        { requestId, accountId: key.accountId, apiKeyId: key.id, model: model.id, type: typeOfDenial(denial.kind), scope: bucket.scope, limits: bucket.limits },
        'rate limit hit',
      );
      // No retry can cure a request larger than the limit: say so (the OpenAI SDKs read x-should-retry).
      if (denial.retryAt === null) this.replyHeaders.set(requestId, { ...headers, [HEADER.shouldRetry]: 'false' });
      this.metrics.refused('rate_limited', model.id);
      const retryAfterSeconds = ((denial.retryAt ?? now + this.config.RATE_LIMIT_WINDOW_MS) - now) / 1000;
      throw new DomainError(ErrorCode.RateLimited, denialMessage({ ...plan, buckets: [...counted.buckets] }, denial, now, cost), undefined, {
        retryAfterSeconds,
        limitedOn: typeOfDenial(denial.kind) === 'TPM' ? 'tokens' : 'requests',
      });
    }
    return {
      headers,
      settle: (usage) => counted.settle(usage === null ? null : tokensUsed(usage, worstCase)),
    };
  }

  /**
   * The caller check folded into the admission call: refused when the block key was set (nothing
   * was counted), else decided by the full check where the read is not enough (the local fallback,
   * or a caller that needs its address checked too), which releases what admission counted.
   */
  private async enforceFolded(requestId: string, check: FoldableCheck, counted: Counted): Promise<void> {
    const read = counted.decision.blockedUntil;
    const decided = read === undefined ? undefined : check.decide(read);
    if (decided !== undefined) return this.gate.enforce(requestId, decided);
    const verdict = await check.run();
    if (verdict && typeof read !== 'number') await counted.settle(null);
    this.gate.enforce(requestId, verdict);
  }
}
