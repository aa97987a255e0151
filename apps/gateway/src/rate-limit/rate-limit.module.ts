import { Module } from '@nestjs/common';
import { AdmissionGate } from './admission-gate';
import { RateLimitHeadersHook } from './rate-limit-headers.hook';
import { RateLimitLog } from './rate-limit-log';
import { RateLimitStage } from './rate-limit.stage';
import { RateLimiter } from './rate-limiter';
import { RateLimitsController } from './rate-limits.controller';
import { RedisAvailability } from './redis-availability';
import { ReplyHeadersStore } from './reply-headers.store';

/** Rate limits (admission stage, headers, GET /api_keys/rate_limits[/log]); see README.md. */
@Module({
  controllers: [RateLimitsController],
  providers: [RedisAvailability, RateLimiter, ReplyHeadersStore, AdmissionGate, RateLimitLog, RateLimitStage, RateLimitHeadersHook],
  exports: [RateLimitStage, RedisAvailability, AdmissionGate, ReplyHeadersStore],
})
export class RateLimitModule {}
