import { DynamicModule, Module } from '@nestjs/common';
import { createLogger } from '@svc/logging';
import { HEALTH_CHECKS, MessagingModule } from '@svc/messaging';
import { AccountChangesRelay } from './accounts/account-changes.relay';
import { AccountsHandler } from './accounts/accounts.handler';
import { AccountsRepository } from './accounts/accounts.repository';
import { AccountsService } from './accounts/accounts.service';
import { BillingConfig } from './config';
import { BILLING_DB, BillingDb, billingDbHealthCheck } from './database/billing-db';
import { BillingDatabaseModule } from './database/database.module';
import { LeasesRepository } from './leases/leases.repository';
import { LeasesService } from './leases/leases.service';
import { SettlementsService } from './leases/settlements.service';
import { ReservationsRepository } from './reservations/reservations.repository';
import { ReservationCache } from './reservations/reservation.cache';
import { ReservationsService } from './reservations/reservations.service';
import { ReservationsSubscriber } from './reservations/reservations.subscriber';
import { BILLING_LOGGER } from './shared/logger.token';
import { LeaseSweeper } from './sweeper/lease.sweeper';
import { ReservationSweeper } from './sweeper/reservation.sweeper';
import { UsageHandler } from './usage/usage.handler';
import { UsageRepository } from './usage/usage.repository';
import { UsageService } from './usage/usage.service';
import { X402PaymentsHandler } from './x402/x402-payments.handler';
import { X402PaymentsRepository } from './x402/x402-payments.repository';

/** The billing service: prepaid credits in svc_billing, answering BILLING.* on NATS. */
@Module({})
export class AppModule {
  static forConfig(config: BillingConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        BillingDatabaseModule.forConfig(config),
        MessagingModule.forRoot({
          name: 'billing',
          natsUrl: config.NATS_URL,
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          health: {
            service: 'billing',
            checks: { provide: HEALTH_CHECKS, inject: [BILLING_DB], useFactory: (db: BillingDb) => ({ database: billingDbHealthCheck(db) }) },
          },
        }),
      ],
      controllers: [AccountsHandler, UsageHandler, X402PaymentsHandler],
      providers: [
        { provide: BILLING_LOGGER, useValue: createLogger('billing', config.LOG_LEVEL) },
        ReservationsRepository,
        ReservationsService,
        ReservationCache,
        ReservationsSubscriber,
        LeasesRepository,
        LeasesService,
        SettlementsService,
        AccountsRepository,
        AccountsService,
        AccountChangesRelay,
        UsageRepository,
        UsageService,
        LeaseSweeper,
        ReservationSweeper,
        X402PaymentsRepository,
      ],
    };
  }
}
