import { Module } from '@nestjs/common';
import { BillingStage } from './billing.stage';

@Module({ providers: [BillingStage], exports: [BillingStage] })
export class BillingModule {}
