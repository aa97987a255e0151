import { DynamicModule, Global, Inject, Injectable, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { redactUrl } from '@svc/database';
import { BILLING_CONFIG, BillingConfig } from '../config';
import { BILLING_DB, BillingDb, createBillingDb } from './billing-db';
import { migrateBillingDatabase } from './billing-migrations';

/** Migrates before any handler subscribes (Nest awaits onModuleInit before listening). */
@Injectable()
class DatabaseLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('BillingDatabase');

  constructor(
    @Inject(BILLING_CONFIG) private readonly config: BillingConfig,
    @Inject(BILLING_DB) private readonly db: BillingDb,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.config.BILLING_MIGRATE_ON_BOOT) return;
    const result = await migrateBillingDatabase(this.config.BILLING_DATABASE_URL, (message) => this.logger.log(message));
    this.logger.log(
      `database ${redactUrl(this.config.BILLING_DATABASE_URL)}: ${result.applied.length} migration(s) applied, ${result.alreadyApplied.length} already`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.db.end();
  }
}

@Global()
@Module({})
export class BillingDatabaseModule {
  static forConfig(config: BillingConfig): DynamicModule {
    const logger = new Logger('BillingDatabase');
    return {
      module: BillingDatabaseModule,
      providers: [
        { provide: BILLING_CONFIG, useValue: config },
        {
          provide: BILLING_DB,
          useFactory: () =>
            createBillingDb(config.BILLING_DATABASE_URL, config.BILLING_DB_POOL_MAX, (err) => logger.warn(`idle database connection failed: ${err.message}`)),
        },
        DatabaseLifecycle,
      ],
      exports: [BILLING_CONFIG, BILLING_DB],
    };
  }
}
