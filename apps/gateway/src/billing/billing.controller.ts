import { Controller, Get, Headers, Query } from '@nestjs/common';
import { AdminOnly } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { BillingReportsPipeline } from './billing-reports.pipeline';
import { usageAnalyticsQuery, usageHistoryQuery } from './billing.dto';

/** Billing of the caller's account (ADMIN keys; the public API calls it beta): BillingReportsPipeline. */
@AdminOnly()
@Controller('billing')
export class BillingController {
  constructor(private readonly pipeline: BillingReportsPipeline) {}

  @Get('balance')
  balance(@Call() call: RouteCall) {
    return this.pipeline.balance(call);
  }

  @Get('usage-history')
  usageHistory(@Query() query: unknown, @Headers('accept') accept: string | undefined, @Call() call: RouteCall) {
    return this.pipeline.usageHistory(call, parseBody(usageHistoryQuery, query ?? {}), accept);
  }

  @Get('usage-analytics')
  usageAnalytics(@Query() query: unknown, @Call() call: RouteCall) {
    return this.pipeline.usageAnalytics(call, parseBody(usageAnalyticsQuery, query ?? {}));
  }
}
