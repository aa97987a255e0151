import { DomainError, ErrorCode } from '@svc/errors';
import { OutboundFetcher } from '@svc/outbound';
import { extractReadable } from './html-extract';

export interface ScrapedPage {
  /** The URL that answered (after redirects). */
  url: string;
  title: string;
  /** Readable content as Markdown. */
  content: string;
  /** True when `content` was cut at the length limit (the text then ends with a marker). */
  truncated: boolean;
}

const HTML = new Set(['text/html', 'application/xhtml+xml']);
const TEXT = new Set(['text/plain', 'text/markdown', 'text/x-markdown', 'application/json', 'text/csv']);

/**
 * Fetches a page through the SSRF guard and keeps its readable part as Markdown (Readability,
 * turndown). Content is never logged.
 */
export class Scraper {
  constructor(
    private readonly fetcher: OutboundFetcher,
    private readonly maxChars = 100_000,
  ) {}

  async scrape(url: string, signal?: AbortSignal): Promise<ScrapedPage> {
    const res = await this.fetcher.fetch(url, { signal, headers: { accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5' } });
    if (res.status >= 400)
      throw new DomainError(ErrorCode.Validation, `The page answered HTTP ${res.status}.`, { _errors: [], url: { _errors: [`HTTP ${res.status}`] } });
    let title = '';
    let content: string;
    const media = res.mediaType;
    if (HTML.has(media) || (media === '' && /^\s*</.test(res.body.subarray(0, 256).toString('utf8')))) {
      const page = extractReadable(res.body.toString('utf8'));
      title = page.title;
      content = page.markdown;
    } else if (TEXT.has(media) || media.startsWith('text/')) {
      content = res.body.toString('utf8').trim();
    } else {
      throw new DomainError(ErrorCode.Validation, `The page's content type (${media || 'unknown'}) cannot be scraped; only HTML and text pages can.`, {
        _errors: [],
        url: { _errors: ['unsupported content type'] },
      });
    }
    const truncated = content.length > this.maxChars;
    if (truncated) content = `${content.slice(0, this.maxChars)}\n\n[content truncated at ${this.maxChars} characters]`;
    return { url: res.url, title, content, truncated };
  }
}
