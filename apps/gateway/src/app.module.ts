import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { loadCatalog } from '@svc/catalog';
import { Logger } from '@svc/logging';
import { MessagingModule } from '@svc/messaging';
import { AbuseModule } from './abuse/abuse.module';
import { AdmissionModule } from './admission/admission.module';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { AudioModule } from './audio/audio.module';
import { ApiKeyGuard } from './auth/api-key.guard';
import { KeyCache } from './auth/key-cache';
import { KeyUsageReporter } from './auth/key-usage.reporter';
import { CharactersController } from './characters/characters.controller';
import { ChatController } from './chat/chat.controller';
import { AugmentController } from './augment/augment.controller';
import { EmbeddingsController } from './embeddings/embeddings.controller';
import { PromptBudget } from './chat/prompt-budget';
import { SseStreamer } from './chat/sse-streamer';
import { SvcParametersResolver } from './chat/svc-parameters.resolver';
import { GATEWAY_CONFIG, GatewayConfig } from './config';
import { HealthController } from './health/health.controller';
import { ImageModule } from './image/image.module';
import { GATEWAY_LOGGER } from './logger.token';
import { ModelsController } from './models/models.controller';
import { RedisModule } from './redis/redis.module';
import { CATALOG } from './models/models.tokens';

/** Global so feature modules (admission stages, ...) can inject config, catalog and logger. */
@Global()
@Module({})
export class AppModule {
  static forConfig(config: GatewayConfig, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({ name: 'gateway', natsUrl: config.NATS_URL, rpcTimeoutMs: config.RPC_TIMEOUT_MS }),
        RedisModule,
        AdmissionModule,
        AbuseModule,
        ImageModule,
        AudioModule,
      ],
      controllers: [HealthController, ModelsController, ChatController, ApiKeysController, EmbeddingsController, AugmentController, CharactersController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: CATALOG, useValue: loadCatalog(config.SVC_CATALOG_PATH) },
        { provide: GATEWAY_LOGGER, useValue: logger },
        KeyCache,
        KeyUsageReporter,
        SseStreamer,
        PromptBudget,
        SvcParametersResolver,
        { provide: APP_GUARD, useClass: ApiKeyGuard },
      ],
      exports: [GATEWAY_CONFIG, CATALOG, GATEWAY_LOGGER, PromptBudget],
    };
  }
}
