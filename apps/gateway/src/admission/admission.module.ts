import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { BillingStage } from '../billing/billing.stage';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { RateLimitStage } from '../rate-limit/rate-limit.stage';
import { AdmissionService } from './admission.service';
import { ADMISSION_STAGES, AdmissionStage } from './admission.types';

/** Order matters: rate limits first (cheap, Redis), then the credit reservation. */
@Module({
  imports: [RateLimitModule, BillingModule],
  providers: [AdmissionService, { provide: ADMISSION_STAGES, inject: [RateLimitStage, BillingStage], useFactory: (...stages: AdmissionStage[]) => stages }],
  exports: [AdmissionService],
})
export class AdmissionModule {}
