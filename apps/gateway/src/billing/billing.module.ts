import { Global, Module } from '@nestjs/common';
import { ACCOUNT_BALANCES } from '../rate-limit/account-balances';
import { BillingController } from './billing.controller';
import { BillingRequests } from './billing-requests';
import { BillingStage } from './billing.stage';
import { GatewayAccountBalances } from './gateway-account-balances';
import { KeyUsageEnricher } from './key-usage.enricher';

/**
 * Global: the chat controller reads BillingRequests, the rate-limits endpoint ACCOUNT_BALANCES, the
 * API keys endpoints KeyUsageEnricher.
 */
@Global()
@Module({
  controllers: [BillingController],
  providers: [BillingStage, BillingRequests, KeyUsageEnricher, { provide: ACCOUNT_BALANCES, useClass: GatewayAccountBalances }],
  exports: [BillingStage, BillingRequests, KeyUsageEnricher, ACCOUNT_BALANCES],
})
export class BillingModule {}
