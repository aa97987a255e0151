import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateEmbeddingsReply, CreateEmbeddingsRequest, EMBEDDINGS } from '@svc/contracts';
import { EmbeddingsService } from './embeddings.service';

@Controller()
export class EmbeddingsHandler {
  constructor(private readonly embeddings: EmbeddingsService) {}

  @MessagePattern(EMBEDDINGS.CREATE)
  create(@Payload() request: CreateEmbeddingsRequest): Promise<CreateEmbeddingsReply> {
    return this.embeddings.create(request);
  }
}
