import { Controller, Get, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { Public } from '../auth/auth.decorators';

/** The reference's dates for the retired endpoint: deprecated 2026-07-09 (RFC 9745), sunset 2026-09-16 (RFC 8594). */
export const USAGE_DEPRECATED_AT = '@1783555200';
export const USAGE_SUNSET = 'Wed, 16 Sep 2026 00:00:00 GMT';

export const USAGE_SUNSET_MESSAGE =
  'GET /api/v1/billing/usage was retired on 2026-09-16. Use GET /api/v1/billing/usage-history: replace page and limit with pageSize and the nextCursor of each response, and startDate and endDate with startTimestamp and endTimestamp.';

/**
 * `GET /billing/usage`, as the reference serves it: sunset, a 410 to every request (no key
 * needed, as there) naming its successor in the message and in `Link`.
 */
@Controller('billing')
export class BillingUsageSunsetController {
  @Public()
  @Get('usage')
  usage(@Res({ passthrough: true }) reply: FastifyReply): never {
    reply
      .header(HEADER.deprecation, USAGE_DEPRECATED_AT)
      .header(HEADER.sunset, USAGE_SUNSET)
      .header(HEADER.link, '</api/v1/billing/usage-history>; rel="successor-version"');
    throw new DomainError(ErrorCode.Gone, USAGE_SUNSET_MESSAGE);
  }
}
