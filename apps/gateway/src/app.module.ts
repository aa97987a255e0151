import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { loadCatalog } from '@svc/catalog';
import { Logger } from '@svc/logging';
import { MessagingModule } from '@svc/messaging';
import { AbuseModule } from './abuse/abuse.module';
import { AdmissionModule } from './admission/admission.module';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { AudioModule } from './audio/audio.module';
import { BatchesModule } from './batches/batches.module';
import { VideoModule } from './video/video.module';
import { ApiKeyGuard } from './auth/api-key.guard';
import { KeyCache } from './auth/key-cache';
import { KeyUsageReporter } from './auth/key-usage.reporter';
import { SiwxAuthenticator } from './auth/siwx-authenticator';
import { WalletBalanceHeader } from './auth/wallet-balance.hook';
import { CharactersController } from './characters/characters.controller';
import { CharactersPipeline } from './characters/characters.pipeline';
import { CryptoRpcController } from './crypto-rpc/crypto-rpc.controller';
import { CryptoRpcPipeline } from './crypto-rpc/crypto-rpc.pipeline';
import { ChatController } from './chat/chat.controller';
import { ChatPipeline } from './chat/chat.pipeline';
import { CompletionsController } from './completions/completions.controller';
import { CompletionsPipeline } from './completions/completions.pipeline';
import { AugmentController } from './augment/augment.controller';
import { AugmentPipeline } from './augment/augment.pipeline';
import { EmbeddingsModule } from './embeddings/embeddings.module';
import { PromptBudget } from './chat/prompt-budget';
import { SseStreamer } from './chat/sse-streamer';
import { SvcParametersResolver } from './chat/svc-parameters.resolver';
import { GATEWAY_CONFIG, GatewayConfig } from './config';
import { HealthController } from './health/health.controller';
import { GatewayLifecycle } from './health/lifecycle';
import { ImageModule } from './image/image.module';
import { GatewayMetrics, NoGatewayMetrics } from './metrics/gateway-metrics';
import { GATEWAY_LOGGER } from './logger.token';
import { ModelsController } from './models/models.controller';
import { ModerationsModule } from './moderations/moderations.module';
import { OpenApiController } from './openapi/openapi.controller';
import { RedisModule } from './redis/redis.module';
import { RerankModule } from './rerank/rerank.module';
import { ResponsesController } from './responses/responses.controller';
import { ResponsesPipeline } from './responses/responses.pipeline';
import { X402Controller } from './x402/x402.controller';
import { Web3KeysController } from './web3-keys/web3-keys.controller';
import { CATALOG } from './models/models.tokens';

/** Global so feature modules (admission stages, ...) can inject config, catalog and logger. */
@Global()
@Module({})
export class AppModule {
  static forConfig(config: GatewayConfig, logger: Logger): DynamicModule {
    const metrics = config.METRICS_ENABLED ? new GatewayMetrics() : new NoGatewayMetrics();
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          name: 'gateway',
          natsUrl: config.NATS_URL,
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          longCallIdleMs: config.STREAM_IDLE_TIMEOUT_MS,
          rpcObserver: metrics.enabled ? metrics : undefined,
        }),
        RedisModule,
        AdmissionModule,
        AbuseModule,
        ImageModule,
        AudioModule,
        VideoModule,
        EmbeddingsModule,
        RerankModule,
        ModerationsModule,
        BatchesModule.forConfig(config, logger),
      ],
      controllers: [
        HealthController,
        ModelsController,
        ChatController,
        ResponsesController,
        CompletionsController,
        ApiKeysController,
        Web3KeysController,
        AugmentController,
        CharactersController,
        OpenApiController,
        X402Controller,
        CryptoRpcController,
      ],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: CATALOG, useValue: loadCatalog(config.SVC_CATALOG_PATH) },
        { provide: GATEWAY_LOGGER, useValue: logger },
        { provide: GatewayMetrics, useValue: metrics },
        GatewayLifecycle,
        KeyCache,
        KeyUsageReporter,
        SiwxAuthenticator,
        WalletBalanceHeader,
        SseStreamer,
        ChatPipeline,
        CompletionsPipeline,
        ResponsesPipeline,
        AugmentPipeline,
        CryptoRpcPipeline,
        CharactersPipeline,
        PromptBudget,
        SvcParametersResolver,
        { provide: APP_GUARD, useClass: ApiKeyGuard },
      ],
      exports: [GATEWAY_CONFIG, CATALOG, GATEWAY_LOGGER, GatewayMetrics, PromptBudget, ChatPipeline, CompletionsPipeline, ResponsesPipeline],
    };
  }
}
