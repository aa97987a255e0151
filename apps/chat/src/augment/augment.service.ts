import { Inject, Injectable } from '@nestjs/common';
import { LazyBlobStore, packInlineOrBlob, unpackInlineOrBlob } from '@svc/blob-store';
import {
  AugmentParseTextReply,
  AugmentParseTextRequest,
  AugmentScrapeReply,
  AugmentScrapeRequest,
  AugmentSearchReply,
  AugmentSearchRequest,
} from '@svc/contracts';
import { BillingSettler } from '@svc/billing-client';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { CHAT_LOGGER } from '../chat/tokens';
import { EMBEDDING_BLOBS, PAYLOAD_TTL_MS } from '../embeddings/embedding-payloads';
import { TEXT_PARSER, SCRAPER, WEB_SEARCH } from './augment.tokens';
import { TextParser } from './parse/text-parser';
import { Scraper } from './scrape/scraper';
import { WebSearch } from './search/web-search';

/** One call of a tool: what the catalog prices per call (`augment` section). */
const ONE_REQUEST = { kind: 'request', requests: 1 } as const;

/**
 * The three augment endpoints. Each settles the gateway's hold: one `request` at the tool's
 * catalog price when it succeeds, released when it fails. Logs counts and outcomes only: never
 * queries, URLs' content or documents.
 */
@Injectable()
export class AugmentService {
  constructor(
    @Inject(WEB_SEARCH) private readonly search: WebSearch,
    @Inject(SCRAPER) private readonly scraper: Scraper,
    @Inject(TEXT_PARSER) private readonly parser: TextParser,
    @Inject(EMBEDDING_BLOBS) private readonly blobs: LazyBlobStore,
    @Inject(CHAT_LOGGER) private readonly logger: Logger,
    private readonly billing: BillingSettler,
  ) {}

  webSearch({ caller, billing, query, limit }: AugmentSearchRequest): Promise<AugmentSearchReply> {
    return this.billing.around(billing, caller.requestId, async (charge, started) => {
      const results = await this.search.search(query, limit);
      charge(ONE_REQUEST);
      this.logger.info({ requestId: caller.requestId, provider: this.search.providerName, results: results.length, ms: Date.now() - started }, 'web search');
      return { query, results };
    });
  }

  scrape({ caller, billing, url }: AugmentScrapeRequest): Promise<AugmentScrapeReply> {
    return this.billing.around(billing, caller.requestId, async (charge, started) => {
      const page = await this.scraper.scrape(url);
      charge(ONE_REQUEST);
      this.logger.info({ requestId: caller.requestId, chars: page.content.length, truncated: page.truncated, ms: Date.now() - started }, 'scrape');
      return { url: page.url, content: page.content, format: 'markdown' as const };
    });
  }

  parseText({ caller, billing, file, filename, mediaType }: AugmentParseTextRequest): Promise<AugmentParseTextReply> {
    return this.billing.around(billing, caller.requestId, async (charge, started) => {
      const data = await unpackInlineOrBlob(this.blobs, file, {
        missing: () => new DomainError(ErrorCode.ServiceUnavailable, 'The uploaded file expired before it could be parsed; retry.'),
      });
      const doc = await this.parser.parse(data, { filename, mediaType });
      const text = await packInlineOrBlob(this.blobs, Buffer.from(doc.text, 'utf8'), { ttlMs: PAYLOAD_TTL_MS, what: 'the parsed text' });
      const reply = { text, tokens: doc.tokens };
      charge(ONE_REQUEST);
      this.logger.info({ requestId: caller.requestId, kind: doc.kind, bytes: data.length, tokens: doc.tokens, ms: Date.now() - started }, 'text parsed');
      return reply;
    });
  }
}
