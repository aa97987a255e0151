import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule } from '@svc/messaging';
import { MediaConfig } from './config';

/** Not built out yet: joins NATS in the 'media' queue group and answers health. */
@Module({})
export class AppModule {
  static forConfig(config: MediaConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [MessagingModule.forRoot({ name: 'media', natsUrl: config.NATS_URL, rpcTimeoutMs: config.RPC_TIMEOUT_MS, health: { service: 'media' } })],
    };
  }
}
