import { DynamicModule, Module } from '@nestjs/common';
import { databaseHealthCheck } from '@svc/database';
import { HEALTH_CHECKS, MessagingModule } from '@svc/messaging';
import { AccountsHandler } from './accounts/accounts.handler';
import { AccountsRepository, PrismaAccountsRepository } from './accounts/accounts.repository';
import { AccountsService } from './accounts/accounts.service';
import { AdminKeyBootstrapper } from './bootstrap/admin-key.bootstrapper';
import { BootstrapRepository } from './bootstrap/bootstrap.repository';
import { KeysConfig } from './config';
import { KeysDatabaseModule } from './database/database.module';
import { KEYS_PRISMA, KeysPrisma } from './database/keys-prisma';
import { KeyEvents, NatsKeyEvents } from './keys/key-events';
import { KeyUsageRecorder } from './keys/key-usage.recorder';
import { KeysHandler } from './keys/keys.handler';
import { KeysRepository } from './keys/keys.repository';
import { KeysService } from './keys/keys.service';
import { PrismaKeysRepository } from './keys/prisma-keys.repository';
import { PrismaRateLimitsRepository } from './rate-limits/prisma-rate-limits.repository';
import { RateLimitsRepository } from './rate-limits/rate-limits.repository';

/** The keys service: API keys and accounts in svc_keys, answering KEYS.* on NATS. */
@Module({})
export class AppModule {
  static forConfig(config: KeysConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        KeysDatabaseModule.forConfig(config),
        MessagingModule.forRoot({
          name: 'keys',
          natsUrl: config.NATS_URL,
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          health: {
            service: 'keys',
            checks: { provide: HEALTH_CHECKS, inject: [KEYS_PRISMA], useFactory: (prisma: KeysPrisma) => ({ database: databaseHealthCheck(prisma) }) },
          },
        }),
      ],
      controllers: [KeysHandler, AccountsHandler],
      providers: [
        { provide: KeysRepository, useClass: PrismaKeysRepository },
        { provide: AccountsRepository, useClass: PrismaAccountsRepository },
        { provide: RateLimitsRepository, useClass: PrismaRateLimitsRepository },
        { provide: KeyEvents, useClass: NatsKeyEvents },
        KeysService,
        AccountsService,
        KeyUsageRecorder,
        BootstrapRepository,
        AdminKeyBootstrapper,
      ],
    };
  }
}
