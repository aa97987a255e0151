import { Module } from '@nestjs/common';
import { AdmissionModule } from '../admission/admission.module';
import { EmbeddingBatches } from './embedding-batches';
import { EmbeddingsController } from './embeddings.controller';
import { EmbeddingsPipeline } from './embeddings.pipeline';

/** `POST /embeddings` (also run by batch lines), and the admitted embedding path other routes share (`POST /rerank`). */
@Module({
  imports: [AdmissionModule],
  controllers: [EmbeddingsController],
  providers: [EmbeddingBatches, EmbeddingsPipeline],
  exports: [EmbeddingBatches, EmbeddingsPipeline],
})
export class EmbeddingsModule {}
