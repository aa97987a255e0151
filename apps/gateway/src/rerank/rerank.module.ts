import { Module } from '@nestjs/common';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { RerankController } from './rerank.controller';
import { RerankPipeline } from './rerank.pipeline';

/** `POST /rerank` (docs/rerank-moderation.md): ranking on the embedding models. */
@Module({
  imports: [EmbeddingsModule],
  controllers: [RerankController],
  providers: [RerankPipeline],
})
export class RerankModule {}
