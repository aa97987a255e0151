import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { completionsRequestSchema } from './completions-request.dto';
import { CompletionsPipeline } from './completions.pipeline';
import { TextCompletion } from './completions.types';

@Controller('completions')
export class CompletionsController {
  constructor(private readonly pipeline: CompletionsPipeline) {}

  @Post()
  @HttpCode(200)
  create(@Body() body: unknown, @Call() call: RouteCall): Promise<TextCompletion | undefined> {
    return this.pipeline.run(call, parseBody(completionsRequestSchema, body));
  }
}
