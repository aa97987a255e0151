import { DynamicModule, Global, Inject, Injectable, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { redactUrl } from '@svc/database';
import { KEYS_CONFIG, KeysConfig } from '../config';
import { createKeysPrisma, KEYS_PRISMA, KeysPrisma } from './keys-prisma';
import { migrateKeysDatabase } from './keys-migrations';

/** Migrates before any handler subscribes (Nest awaits onModuleInit before listening). */
@Injectable()
class DatabaseLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('KeysDatabase');

  constructor(
    @Inject(KEYS_CONFIG) private readonly config: KeysConfig,
    @Inject(KEYS_PRISMA) private readonly prisma: KeysPrisma,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.config.KEYS_MIGRATE_ON_BOOT) return;
    const result = await migrateKeysDatabase(this.config.KEYS_DATABASE_URL, (message) => this.logger.log(message));
    this.logger.log(
      `database ${redactUrl(this.config.KEYS_DATABASE_URL)}: ${result.applied.length} migration(s) applied, ${result.alreadyApplied.length} already`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.prisma.$disconnect();
  }
}

@Global()
@Module({})
export class KeysDatabaseModule {
  static forConfig(config: KeysConfig): DynamicModule {
    return {
      module: KeysDatabaseModule,
      providers: [
        { provide: KEYS_CONFIG, useValue: config },
        { provide: KEYS_PRISMA, useFactory: () => createKeysPrisma(config.KEYS_DATABASE_URL, config.KEYS_DB_POOL_MAX) },
        DatabaseLifecycle,
      ],
      exports: [KEYS_CONFIG, KEYS_PRISMA],
    };
  }
}
