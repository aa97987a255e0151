import { Global, Module } from '@nestjs/common';
import { ACCOUNT_BALANCES } from '../rate-limit/account-balances';
import { BillingController } from './billing.controller';
import { BillingStage } from './billing.stage';
import { GatewayAccountBalances } from './gateway-account-balances';
import { KeyUsageEnricher } from './key-usage.enricher';

/**
 * Global: the rate-limits endpoint reads ACCOUNT_BALANCES, the API keys endpoints KeyUsageEnricher.
 */
@Global()
@Module({
  controllers: [BillingController],
  providers: [BillingStage, KeyUsageEnricher, { provide: ACCOUNT_BALANCES, useClass: GatewayAccountBalances }],
  exports: [BillingStage, KeyUsageEnricher, ACCOUNT_BALANCES],
})
export class BillingModule {}
