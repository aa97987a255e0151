import { Inject, Injectable } from '@nestjs/common';
import {
  AugmentParseTextReply,
  AugmentParseTextRequest,
  AugmentScrapeReply,
  AugmentScrapeRequest,
  AugmentSearchReply,
  AugmentSearchRequest,
} from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { CHAT_LOGGER } from '../chat/tokens';
import { EMBEDDING_BLOBS, INLINE_PAYLOAD_LIMIT, LazyBlobStore, PAYLOAD_TTL_MS } from '../embeddings/embedding-payloads';
import { TEXT_PARSER, SCRAPER, WEB_SEARCH } from './augment.tokens';
import { TextParser } from './parse/text-parser';
import { Scraper } from './scrape/scraper';
import { WebSearch } from './search/web-search';

/** The three augment endpoints. Logs counts and outcomes only: never queries, URLs' content or documents. */
@Injectable()
export class AugmentService {
  constructor(
    @Inject(WEB_SEARCH) private readonly search: WebSearch,
    @Inject(SCRAPER) private readonly scraper: Scraper,
    @Inject(TEXT_PARSER) private readonly parser: TextParser,
    @Inject(EMBEDDING_BLOBS) private readonly blobs: LazyBlobStore,
    @Inject(CHAT_LOGGER) private readonly logger: Logger,
  ) {}

  async webSearch({ caller, query, limit }: AugmentSearchRequest): Promise<AugmentSearchReply> {
    const started = Date.now();
    const results = await this.search.search(query, limit);
    this.logger.info({ requestId: caller.requestId, provider: this.search.providerName, results: results.length, ms: Date.now() - started }, 'web search');
    return { query, results };
  }

  async scrape({ caller, url }: AugmentScrapeRequest): Promise<AugmentScrapeReply> {
    const started = Date.now();
    const page = await this.scraper.scrape(url);
    this.logger.info({ requestId: caller.requestId, chars: page.content.length, truncated: page.truncated, ms: Date.now() - started }, 'scrape');
    return { url: page.url, content: page.content, format: 'markdown' };
  }

  async parseText({ caller, file, filename, mediaType }: AugmentParseTextRequest): Promise<AugmentParseTextReply> {
    const started = Date.now();
    const data = await this.blobs.get().take(file.blobId);
    if (!data) throw new DomainError(ErrorCode.ServiceUnavailable, 'The uploaded file expired before it could be parsed; retry.');
    const doc = await this.parser.parse(data, { filename, mediaType });
    this.logger.info({ requestId: caller.requestId, kind: doc.kind, bytes: data.length, tokens: doc.tokens, ms: Date.now() - started }, 'text parsed');
    const bytes = Buffer.from(doc.text, 'utf8');
    if (bytes.length <= INLINE_PAYLOAD_LIMIT) return { text: doc.text, tokens: doc.tokens };
    return { textBlob: await this.blobs.get().put(bytes, PAYLOAD_TTL_MS), tokens: doc.tokens };
  }
}
