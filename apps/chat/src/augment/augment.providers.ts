import { Provider } from '@nestjs/common';
import { Allowlist, OutboundFetcher } from '@svc/outbound';
import { AugmentConfig } from './augment.config';
import { AugmentService } from './augment.service';
import { CONVERSATION_AUGMENTER, SCRAPER, TEXT_PARSER, WEB_SEARCH } from './augment.tokens';
import { ConversationAugmenter } from './conversation/conversation-augmenter';
import { DEFAULT_PARSER_LIMITS, TextParser } from './parse/text-parser';
import { Scraper } from './scrape/scraper';
import { WebSearch } from './search/web-search';

/** The SSRF-guarded fetcher of this service, from its config. */
export function outboundFetcherOf(config: AugmentConfig): OutboundFetcher {
  return new OutboundFetcher({
    allowlist: Allowlist.parse(config.OUTBOUND_ALLOWLIST),
    limits: { maxBytes: config.OUTBOUND_MAX_BYTES, timeoutMs: config.OUTBOUND_TIMEOUT_MS, maxRedirects: config.OUTBOUND_MAX_REDIRECTS },
  });
}

/** What the chat service's AppModule registers for the augment subjects (with AugmentHandler). Needs EMBEDDING_BLOBS. */
export function augmentProviders(config: AugmentConfig): Provider[] {
  return [
    AugmentService,
    { provide: WEB_SEARCH, useValue: WebSearch.fromConfig(config) },
    { provide: SCRAPER, useValue: new Scraper(outboundFetcherOf(config), config.SCRAPE_MAX_CHARS) },
    { provide: TEXT_PARSER, useValue: new TextParser({ ...DEFAULT_PARSER_LIMITS, maxBytes: config.TEXT_PARSER_MAX_BYTES }) },
    {
      provide: CONVERSATION_AUGMENTER,
      inject: [WEB_SEARCH, SCRAPER],
      useFactory: (search: WebSearch, scraper: Scraper) => new ConversationAugmenter(search, scraper),
    },
  ];
}
