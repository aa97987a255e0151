import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { Call, RouteCall } from '../http/route-call';
import { EmbeddingsResponse } from './embeddings-response';
import { EmbeddingsPipeline } from './embeddings.pipeline';

@Controller('embeddings')
export class EmbeddingsController {
  constructor(private readonly pipeline: EmbeddingsPipeline) {}

  @Post()
  @HttpCode(200)
  create(@Body() body: unknown, @Call() call: RouteCall): Promise<EmbeddingsResponse> {
    // Parsed by the pipeline: a batch line hands it the same raw body.
    return this.pipeline.run(call, body);
  }
}
