import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule } from '@svc/messaging';
import { WalletConfig } from './config';

/** Not built out yet: joins NATS in the 'wallet' queue group and answers health. */
@Module({})
export class AppModule {
  static forConfig(config: WalletConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [MessagingModule.forRoot({ name: 'wallet', natsUrl: config.NATS_URL, rpcTimeoutMs: config.RPC_TIMEOUT_MS, health: { service: 'wallet' } })],
    };
  }
}
