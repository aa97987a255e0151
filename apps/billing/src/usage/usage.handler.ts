import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  BILLING,
  KeyUsageReply,
  keyUsageRequestSchema,
  UsageAnalyticsReply,
  usageAnalyticsRequestSchema,
  UsageHistoryReply,
  usageHistoryRequestSchema,
} from '@svc/contracts';
import { UsageService } from './usage.service';

@Controller()
export class UsageHandler {
  constructor(private readonly usage: UsageService) {}

  @MessagePattern(BILLING.USAGE_HISTORY)
  history(@Payload() data: unknown): Promise<UsageHistoryReply> {
    return this.usage.history(usageHistoryRequestSchema.parse(data));
  }

  @MessagePattern(BILLING.USAGE_ANALYTICS)
  analytics(@Payload() data: unknown): Promise<UsageAnalyticsReply> {
    return this.usage.analytics(usageAnalyticsRequestSchema.parse(data));
  }

  @MessagePattern(BILLING.KEY_USAGE)
  keyUsage(@Payload() data: unknown): Promise<KeyUsageReply> {
    return this.usage.keyUsage(keyUsageRequestSchema.parse(data));
  }
}
