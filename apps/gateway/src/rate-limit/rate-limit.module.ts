import { Module } from '@nestjs/common';
import { RateLimitStage } from './rate-limit.stage';

@Module({ providers: [RateLimitStage], exports: [RateLimitStage] })
export class RateLimitModule {}
