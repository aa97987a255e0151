import { Controller, Get, Inject, Optional, Req } from '@nestjs/common';
import { Catalog } from '@svc/catalog';
import { CallerContext, RateLimitType } from '@svc/contracts';
import { AdminOnly, AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { CATALOG } from '../models/models.tokens';
import { ACCOUNT_BALANCES, AccountBalances } from './account-balances';
import { effectiveLimits, limitPlan } from './limit-plan';
import { RateLimitLog } from './rate-limit-log';

const DAY_MS = 86_400_000;

/**
 * `GET /api_keys/rate_limits` (either key type) and `GET /api_keys/rate_limits/log` (ADMIN), in
 * the reference's shapes. Static paths win over ApiKeysController's `api_keys/:id` in Fastify.
 */
@Controller('api_keys/rate_limits')
export class RateLimitsController {
  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly log: RateLimitLog,
    @Optional() @Inject(ACCOUNT_BALANCES) private readonly balances?: AccountBalances,
  ) {}

  @Get()
  async limits(@Req() request: AuthenticatedRequest, @Caller() caller: CallerContext) {
    const key = request.apiKey!;
    const apiTier = key.rateLimits?.apiTier ?? 'paid';
    const rateLimits = this.catalog.models.map((model) => {
      const limits = effectiveLimits(limitPlan(key, model, this.config.RATE_LIMIT_GLOBAL_JSON));
      const amounts: Array<{ amount: number; type: RateLimitType }> = [];
      if (limits.rpm !== null) amounts.push({ amount: limits.rpm, type: 'RPM' });
      if (limits.rpd !== null) amounts.push({ amount: limits.rpd, type: 'RPD' });
      if (limits.tpm !== null) amounts.push({ amount: limits.tpm, type: 'TPM' });
      return { apiModelId: model.id, rateLimits: amounts };
    });
    return {
      data: {
        accessPermitted: true,
        apiTier: { id: apiTier, isCharged: true },
        balances: (await this.balances?.balances(caller)) ?? {},
        keyExpiration: key.expiresAt,
        // Day-based limits (RPD) reset when the next UTC day begins.
        nextEpochBegins: new Date((Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS).toISOString(),
        rateLimits,
      },
    };
  }

  @AdminOnly()
  @Get('log')
  async hits(@Caller() caller: CallerContext) {
    return { object: 'list', data: await this.log.recent(caller.accountId) };
  }
}
