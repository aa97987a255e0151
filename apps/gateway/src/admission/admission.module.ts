import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { BillingStage } from '../billing/billing.stage';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { RateLimitStage } from '../rate-limit/rate-limit.stage';
import { WalletPaymentRefusals } from '../x402/wallet-payment-refusals';
import { X402PaymentTerms } from '../x402/x402-payment-terms';
import { AdmissionService } from './admission.service';
import { ADMISSION_STAGES, AdmissionRefusals, AdmissionStage } from './admission.types';

/** Order matters: rate limits first (cheap, Redis), then the credit reservation. */
@Module({
  imports: [RateLimitModule, BillingModule],
  providers: [
    AdmissionService,
    WalletPaymentRefusals,
    { provide: AdmissionRefusals, useExisting: WalletPaymentRefusals },
    X402PaymentTerms,
    { provide: ADMISSION_STAGES, inject: [RateLimitStage, BillingStage], useFactory: (...stages: AdmissionStage[]) => stages },
  ],
  exports: [AdmissionService],
})
export class AdmissionModule {}
