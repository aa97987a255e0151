import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { FastifyInstance, FastifyReply } from 'fastify';
import { Catalog } from '@svc/catalog';
import { HEADER } from '@svc/headers';
import { AuthenticatedRequest } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { CATALOG } from '../models/models.tokens';
import { defaultTextModel } from './default-model';
import { limitPlan } from './limit-plan';
import { rateLimitHeaders } from './rate-limit-headers';
import { RateLimiter } from './rate-limiter';
import { ReplyHeadersStore } from './reply-headers.store';

/**
 * Rate-limit headers on every authenticated response (the spec: "authenticated requests").
 * Inference responses carry their admission's headers already; a refusal's headers come from
 * ReplyHeadersStore; any other authenticated response (key management, errors before admission)
 * shows the caller's counters of the default text model, read without counting anything.
 */
@Injectable()
export class RateLimitHeadersHook implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly limiter: RateLimiter,
    private readonly replyHeaders: ReplyHeadersStore,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onSend', async (request, reply, payload) => {
      await this.apply(request as AuthenticatedRequest, reply);
      return payload;
    });
  }

  async apply(request: AuthenticatedRequest, reply: FastifyReply): Promise<void> {
    const pending = this.replyHeaders.take(request.id);
    if (pending) {
      reply.headers(pending);
      return;
    }
    const key = request.apiKey;
    if (!this.config.RATE_LIMITS_ENABLED || !key || reply.hasHeader(HEADER.rateLimitLimitRequests)) return;
    const model = defaultTextModel(this.catalog);
    if (!model) return;
    const plan = limitPlan(key, model, this.config.RATE_LIMIT_GLOBAL_JSON);
    const { decision, buckets } = await this.limiter.peek(plan.buckets);
    reply.headers(rateLimitHeaders(buckets, decision, this.config.RATE_LIMIT_WINDOW_MS));
  }
}
