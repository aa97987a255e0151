import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule } from '@svc/messaging';
import { AudioConfig } from './config';

/** Not built out yet: joins NATS in the 'audio' queue group and answers health. */
@Module({})
export class AppModule {
  static forConfig(config: AudioConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [MessagingModule.forRoot({ name: 'audio', natsUrl: config.NATS_URL, rpcTimeoutMs: config.RPC_TIMEOUT_MS, health: { service: 'audio' } })],
    };
  }
}
