import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AUGMENT,
  AugmentParseTextReply,
  AugmentParseTextRequest,
  AugmentScrapeReply,
  AugmentScrapeRequest,
  AugmentSearchReply,
  AugmentSearchRequest,
} from '@svc/contracts';
import { AugmentService } from './augment.service';

@Controller()
export class AugmentHandler {
  constructor(private readonly augment: AugmentService) {}

  @MessagePattern(AUGMENT.SEARCH)
  search(@Payload() request: AugmentSearchRequest): Promise<AugmentSearchReply> {
    return this.augment.webSearch(request);
  }

  @MessagePattern(AUGMENT.SCRAPE)
  scrape(@Payload() request: AugmentScrapeRequest): Promise<AugmentScrapeReply> {
    return this.augment.scrape(request);
  }

  @MessagePattern(AUGMENT.PARSE_TEXT)
  parseText(@Payload() request: AugmentParseTextRequest): Promise<AugmentParseTextReply> {
    return this.augment.parseText(request);
  }
}
