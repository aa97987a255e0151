import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CountEmbeddingTokensReply, CountEmbeddingTokensRequest, CreateEmbeddingsReply, CreateEmbeddingsRequest, EMBEDDINGS } from '@svc/contracts';
import { EmbeddingsService } from './embeddings.service';

@Controller()
export class EmbeddingsHandler {
  constructor(private readonly embeddings: EmbeddingsService) {}

  @MessagePattern(EMBEDDINGS.CREATE)
  create(@Payload() request: CreateEmbeddingsRequest): Promise<CreateEmbeddingsReply> {
    return this.embeddings.create(request);
  }

  @MessagePattern(EMBEDDINGS.COUNT_TOKENS)
  countTokens(@Payload() request: CountEmbeddingTokensRequest): CountEmbeddingTokensReply {
    return this.embeddings.countTokens(request);
  }
}
