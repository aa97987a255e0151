import { Global, Module } from '@nestjs/common';
import { Logger } from '@svc/logging';
import { RpcClient } from '@svc/messaging';
import { BillingSettler, openSettlementJournal } from '@svc/billing-client';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { GATEWAY_LOGGER } from '../logger.token';
import { ACCOUNT_BALANCES } from '../rate-limit/account-balances';
import { BillingUsageSunsetController } from './billing-usage-sunset.controller';
import { BillingController } from './billing.controller';
import { BillingReportsPipeline } from './billing-reports.pipeline';
import { BillingStage } from './billing.stage';
import { CreditLeases } from './credit-leases';
import { GatewayAccountBalances } from './gateway-account-balances';
import { KeyUsageEnricher } from './key-usage.enricher';

/**
 * Global: the rate-limits endpoint reads ACCOUNT_BALANCES, the API keys endpoints KeyUsageEnricher.
 */
@Global()
@Module({
  controllers: [BillingController, BillingUsageSunsetController],
  providers: [
    BillingReportsPipeline,
    BillingStage,
    CreditLeases,
    // Releases of requests admitted under a lease travel in batches, as the services' settlements do, journaled as theirs are.
    {
      provide: BillingSettler,
      inject: [RpcClient, GATEWAY_LOGGER, GATEWAY_CONFIG],
      useFactory: (rpc: RpcClient, logger: Logger, config: GatewayConfig) =>
        new BillingSettler(rpc, logger, openSettlementJournal(config.SETTLEMENT_JOURNAL_DIR, 'gateway', logger), config.SETTLE_WINDOW_MS),
    },
    KeyUsageEnricher,
    { provide: ACCOUNT_BALANCES, useClass: GatewayAccountBalances },
  ],
  exports: [BillingStage, KeyUsageEnricher, ACCOUNT_BALANCES],
})
export class BillingModule {}
