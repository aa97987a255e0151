import { Module } from '@nestjs/common';
import { AdmissionModule } from '../admission/admission.module';
import { EmbeddingBatches } from './embedding-batches';
import { EmbeddingsController } from './embeddings.controller';

/** `POST /embeddings`, and the admitted embedding path other routes share (`POST /rerank`). */
@Module({
  imports: [AdmissionModule],
  controllers: [EmbeddingsController],
  providers: [EmbeddingBatches],
  exports: [EmbeddingBatches],
})
export class EmbeddingsModule {}
