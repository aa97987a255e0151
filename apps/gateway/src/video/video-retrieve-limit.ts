import { Injectable } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { ModelDefinition } from '@svc/catalog';
import { CallerContext } from '@svc/contracts';
import { NO_TOKENS } from '../admission/admission.service';
import { AuthenticatedRequest } from '../auth/auth.decorators';
import { RateLimitStage } from '../rate-limit/rate-limit.stage';

/**
 * `/video/retrieve` is limited on its own (`video-retrieve`, 120 a minute by default) and never
 * billed: polling is not inference, so only the rate-limit stage of admission applies.
 */
@Injectable()
export class VideoRetrieveLimit {
  constructor(private readonly rateLimits: RateLimitStage) {}

  async run<T>(
    call: { caller: CallerContext; request: AuthenticatedRequest; reply: FastifyReply },
    model: ModelDefinition,
    work: () => Promise<T>,
  ): Promise<T> {
    const ticket = await this.rateLimits.admit({
      requestId: call.caller.requestId,
      key: call.request.apiKey!,
      model: { ...model, limitClass: 'video-retrieve' },
      worstCase: { kind: 'request', requests: 1 },
      ip: call.request.ip,
    });
    for (const [name, value] of Object.entries(ticket.headers)) call.reply.header(name, value);
    try {
      return await work();
    } finally {
      await ticket.settle(NO_TOKENS).catch(() => undefined);
    }
  }
}
