import { RequestBilling } from '../billing/subjects';
import { CallerContext } from '../services';
import { EmbeddingBlobRef } from '../embeddings/subjects';
import { InlineOrBlob } from '../schemas/inline-or-blob';

/** Retrieval augmentation, served by the chat service (docs/retrieval.md). */
export const AUGMENT = {
  SEARCH: 'chat.cmd.augment-search.v1',
  SCRAPE: 'chat.cmd.augment-scrape.v1',
  /** v2: the reply's text is an InlineOrBlob (v1 had text/textBlob). */
  PARSE_TEXT: 'chat.cmd.augment-parse-text.v2',
} as const;

export interface WebSearchResult {
  title: string;
  url: string;
  content: string;
  /** '' when the provider gives no date. */
  date: string;
}

/** What every augment call carries: the caller, and the gateway's hold the service settles (one `request` at the tool's price). */
export interface AugmentCall {
  caller: CallerContext;
  billing?: RequestBilling;
}

export interface AugmentSearchRequest extends AugmentCall {
  query: string;
  limit: number;
}
export interface AugmentSearchReply {
  query: string;
  results: WebSearchResult[];
}

export interface AugmentScrapeRequest extends AugmentCall {
  url: string;
}
export interface AugmentScrapeReply {
  url: string;
  content: string;
  format: 'markdown';
}

export interface AugmentParseTextRequest extends AugmentCall {
  /** The uploaded file, parked in Redis by the gateway (`@svc/blob-store`). */
  file: EmbeddingBlobRef;
  filename?: string;
  mediaType?: string;
}
export interface AugmentParseTextReply {
  /** The text, UTF-8. */
  text: InlineOrBlob;
  tokens: number;
}

export interface AugmentRpc {
  [AUGMENT.SEARCH]: { req: AugmentSearchRequest; res: AugmentSearchReply };
  [AUGMENT.SCRAPE]: { req: AugmentScrapeRequest; res: AugmentScrapeReply };
  [AUGMENT.PARSE_TEXT]: { req: AugmentParseTextRequest; res: AugmentParseTextReply };
}
