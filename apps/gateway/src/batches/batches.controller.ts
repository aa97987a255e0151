import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { CallerContext } from '@svc/contracts';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { createBatchSchema, listBatchesSchema } from './batch-request.dto';
import { BatchesService } from './batches.service';

/** OpenAI's Batch API: a JSONL of requests run as one job, each line admitted and billed as a request (docs/batches.md). */
@Controller('batches')
export class BatchesController {
  constructor(private readonly batches: BatchesService) {}

  @Post()
  @HttpCode(200)
  create(@Body() body: unknown, @Req() request: AuthenticatedRequest) {
    return this.batches.create(request.apiKey!, request.ip, parseBody(createBatchSchema, body));
  }

  @Get()
  list(@Query() query: unknown, @Caller() caller: CallerContext) {
    const { limit, after } = parseBody(listBatchesSchema, query);
    return this.batches.list(caller.accountId, limit, after);
  }

  @Get(':id')
  get(@Param('id') id: string, @Caller() caller: CallerContext) {
    return this.batches.get(caller.accountId, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  cancel(@Param('id') id: string, @Caller() caller: CallerContext) {
    return this.batches.cancel(caller.accountId, id);
  }
}
