import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { AugmentScrapeReply, AugmentSearchReply } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { plainBody } from '../image/multipart-body';
import { augmentScrapeSchema, augmentSearchSchema, filePartOf, textParserSchema } from './augment-request.dto';
import { AugmentPipeline } from './augment.pipeline';

/** `POST /augment/search`, `/augment/scrape`, `/augment/text-parser` (docs/retrieval.md). */
@Controller('augment')
export class AugmentController {
  constructor(private readonly pipeline: AugmentPipeline) {}

  @Post('search')
  @HttpCode(200)
  search(@Body() body: unknown, @Call() call: RouteCall): Promise<AugmentSearchReply> {
    return this.pipeline.search(call, parseBody(augmentSearchSchema, body));
  }

  @Post('scrape')
  @HttpCode(200)
  scrape(@Body() body: unknown, @Call() call: RouteCall): Promise<AugmentScrapeReply> {
    return this.pipeline.scrape(call, parseBody(augmentScrapeSchema, body));
  }

  @Post('text-parser')
  @HttpCode(200)
  async textParser(@Body() body: unknown, @Call() call: RouteCall): Promise<unknown> {
    if (!call.request.isMultipart()) throw new DomainError(ErrorCode.UnsupportedMediaType, 'Send the document as multipart/form-data with a "file" field.');
    const part = filePartOf(body);
    return this.pipeline.parseText(call, parseBody(textParserSchema, await plainBody(body)), part);
  }
}
