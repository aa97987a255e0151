import { Module } from '@nestjs/common';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { AbuseHooks } from './abuse.hooks';
import { AbuseProtection } from './abuse-protection';

/** The abuse block (failed-request floods), registered as Fastify hooks around every API request; see README.md. */
@Module({
  imports: [RateLimitModule],
  providers: [AbuseProtection, AbuseHooks],
})
export class AbuseModule {}
