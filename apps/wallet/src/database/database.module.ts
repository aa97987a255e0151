import { DynamicModule, Global, Inject, Injectable, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { redactUrl } from '@svc/database';
import { WALLET_CONFIG, WalletConfig } from '../config';
import { createWalletDb, WALLET_DB, WalletDb } from './wallet-db';
import { migrateWalletDatabase } from './wallet-migrations';

/** Migrates before any handler subscribes (Nest awaits onModuleInit before listening). */
@Injectable()
class DatabaseLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('WalletDatabase');

  constructor(
    @Inject(WALLET_CONFIG) private readonly config: WalletConfig,
    @Inject(WALLET_DB) private readonly db: WalletDb,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.config.WALLET_MIGRATE_ON_BOOT) return;
    const result = await migrateWalletDatabase(this.config.WALLET_DATABASE_URL, (message) => this.logger.log(message));
    this.logger.log(
      `database ${redactUrl(this.config.WALLET_DATABASE_URL)}: ${result.applied.length} migration(s) applied, ${result.alreadyApplied.length} already`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.db.end();
  }
}

/** The wallet's database (WALLET_DB) and its config (WALLET_CONFIG), for every wallet module. */
@Global()
@Module({})
export class WalletDatabaseModule {
  static forConfig(config: WalletConfig): DynamicModule {
    const logger = new Logger('WalletDatabase');
    return {
      module: WalletDatabaseModule,
      providers: [
        { provide: WALLET_CONFIG, useValue: config },
        {
          provide: WALLET_DB,
          useFactory: () =>
            createWalletDb(config.WALLET_DATABASE_URL, config.WALLET_DB_POOL_MAX, (err) => logger.warn(`idle database connection failed: ${err.message}`)),
        },
        DatabaseLifecycle,
      ],
      exports: [WALLET_CONFIG, WALLET_DB],
    };
  }
}
