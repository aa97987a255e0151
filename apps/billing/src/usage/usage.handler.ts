import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BILLING, KeyUsageReply, UsageAnalyticsReply, UsageHistoryReply } from '@svc/contracts';
import { keyUsageSchema, usageAnalyticsSchema, usageHistorySchema } from './usage.schemas';
import { UsageService } from './usage.service';

@Controller()
export class UsageHandler {
  constructor(private readonly usage: UsageService) {}

  @MessagePattern(BILLING.USAGE_HISTORY)
  history(@Payload() data: unknown): Promise<UsageHistoryReply> {
    return this.usage.history(usageHistorySchema.parse(data));
  }

  @MessagePattern(BILLING.USAGE_ANALYTICS)
  analytics(@Payload() data: unknown): Promise<UsageAnalyticsReply> {
    return this.usage.analytics(usageAnalyticsSchema.parse(data));
  }

  @MessagePattern(BILLING.KEY_USAGE)
  keyUsage(@Payload() data: unknown): Promise<KeyUsageReply> {
    return this.usage.keyUsage(keyUsageSchema.parse(data));
  }
}
