import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule } from '@svc/messaging';
import { BillingConfig } from './config';

/** Not built out yet: joins NATS in the 'billing' queue group and answers health. */
@Module({})
export class AppModule {
  static forConfig(config: BillingConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [MessagingModule.forRoot({ name: 'billing', natsUrl: config.NATS_URL, rpcTimeoutMs: config.RPC_TIMEOUT_MS, health: { service: 'billing' } })],
    };
  }
}
