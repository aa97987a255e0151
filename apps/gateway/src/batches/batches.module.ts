import { DynamicModule, Module } from '@nestjs/common';
import { JobsModule } from '@svc/jobs';
import { Logger } from '@svc/logging';
import { GatewayConfig } from '../config';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { BatchLineRunner } from './batch-line-runner';
import { BATCH_QUEUE, batchQueuePrefix, BatchRunner } from './batch-runner';
import { BatchStore } from './batch-store';
import { BATCH_CONFIG, loadBatchConfig } from './batch.config';
import { BatchesController } from './batches.controller';
import { BatchesService } from './batches.service';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';

/** `/files` and `/batches` (docs/batches.md): the routes, the Redis store and the batch worker. */
@Module({})
export class BatchesModule {
  static forConfig(config: GatewayConfig, logger: Logger): DynamicModule {
    return {
      module: BatchesModule,
      imports: [
        EmbeddingsModule,
        JobsModule.forRoot({ redisUrl: config.REDIS_URL, logger, label: 'batch job queue' }),
        JobsModule.registerQueue(BATCH_QUEUE, batchQueuePrefix(config)),
      ],
      controllers: [FilesController, BatchesController],
      providers: [{ provide: BATCH_CONFIG, useFactory: () => loadBatchConfig() }, BatchStore, FilesService, BatchesService, BatchRunner, BatchLineRunner],
    };
  }
}
