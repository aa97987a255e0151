import { ChatMessage, SvcParameters, WebSearchResult } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Scraper } from '../scrape/scraper';
import { WebSearch } from '../search/web-search';
import { detectUrls, needsWebSearch, searchQueryOf } from './query-classifier';

export type AugmentFlags = Pick<SvcParameters, 'enable_web_search' | 'enable_web_scraping' | 'enable_web_citations'>;

export interface Citation {
  /** 1-based, as cited in the answer (`^1^`). */
  index: number;
  title: string;
  url: string;
  date: string;
}

export interface ConversationAugmentation {
  /** Where the context came from: scraped URLs of the last user message, a web search, or nothing. */
  source: 'scrape' | 'search' | 'none';
  /** The sources, in citation order (scraped pages as results whose `content` is their Markdown). */
  searchResults: WebSearchResult[];
  /** A system message to put before the conversation ('' when nothing was found). */
  contextText: string;
  citations: Citation[];
  /** Billable quantities: searches run, URLs scraped successfully (failed ones are not billed). */
  usage: { searches: number; scrapedUrls: number; failedUrls: number };
  /** The search query used, when a search ran. */
  query?: string;
}

export interface ConversationAugmenterOptions {
  /** Results asked of the search provider. */
  searchLimit?: number;
  /** URLs scraped at most (the spec's 5). */
  maxUrls?: number;
  /** Characters of context per source and in all. */
  perSourceChars?: number;
  totalChars?: number;
}

const NONE: ConversationAugmentation = {
  source: 'none',
  searchResults: [],
  contextText: '',
  citations: [],
  usage: { searches: 0, scrapedUrls: 0, failedUrls: 0 },
};

/**
 * Retrieval for a chat request (`svc_parameters`), for the chat service to call before generation:
 *
 * ```ts
 * const aug = await augmenter.augmentConversation(params.messages, svcParameters, signal);
 * const messages = aug.contextText ? [{ role: 'system', content: aug.contextText }, ...params.messages] : params.messages;
 * // stream: if include_search_results_in_stream, send aug.searchResults first; if
 * // enable_web_citations, pipe the generated text through new CitationRewriter({ sources: aug.citations.length }).
 * ```
 *
 * - `enable_web_scraping`: up to 5 URLs of the last user message are fetched concurrently through
 *   the SSRF guard (each with its time and size caps); when any succeeds, search is skipped.
 * - `enable_web_search: "on"`: a search with the last user message as query (400 when no
 *   provider is configured; provider failures propagate). `"auto"`: only when a provider is
 *   configured and `needsWebSearch` says the message wants fresh facts; failures are skipped.
 * Throws only DomainErrors. Never logs content.
 */
export class ConversationAugmenter {
  private readonly options: Required<ConversationAugmenterOptions>;

  constructor(
    private readonly search: WebSearch,
    private readonly scraper: Scraper,
    options: ConversationAugmenterOptions = {},
  ) {
    this.options = { searchLimit: 5, maxUrls: 5, perSourceChars: 4_000, totalChars: 12_000, ...options };
  }

  searchConfigured(): boolean {
    return this.search.searchConfigured();
  }

  async augmentConversation(messages: ChatMessage[], flags: AugmentFlags, signal?: AbortSignal): Promise<ConversationAugmentation> {
    const mode = flags.enable_web_search;
    if (mode === 'on' && !this.search.searchConfigured()) {
      throw new DomainError(
        ErrorCode.Validation,
        'Web search is not configured on this server (enable_web_search "on" needs SEARXNG_URL or BRAVE_SEARCH_API_KEY).',
        {
          _errors: [],
          svc_parameters: { _errors: [], enable_web_search: { _errors: ['web search is not configured'] } },
        },
      );
    }
    const last = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    if (!last.trim()) return NONE;

    if (flags.enable_web_scraping) {
      const urls = detectUrls(last, this.options.maxUrls);
      if (urls.length > 0) {
        const settled = await Promise.allSettled(urls.map((url) => this.scraper.scrape(url, signal)));
        const pages = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
        const usage = { searches: 0, scrapedUrls: pages.length, failedUrls: urls.length - pages.length };
        if (pages.length > 0) {
          const results = pages.map((p) => ({ title: p.title || p.url, url: p.url, content: p.content, date: '' }));
          return this.build('scrape', results, flags, usage);
        }
        if (mode === 'off') return { ...NONE, usage };
      }
    }

    if (mode === 'off' || !this.search.searchConfigured()) return NONE;
    const query = searchQueryOf(last);
    if (!query || (mode === 'auto' && !needsWebSearch(query))) return NONE;
    try {
      const results = await this.search.search(query, this.options.searchLimit, signal);
      return { ...this.build('search', results, flags, { searches: 1, scrapedUrls: 0, failedUrls: 0 }), query };
    } catch (err) {
      if (mode === 'on') throw err;
      return NONE;
    }
  }

  private build(
    source: 'scrape' | 'search',
    results: WebSearchResult[],
    flags: AugmentFlags,
    usage: ConversationAugmentation['usage'],
  ): ConversationAugmentation {
    if (results.length === 0) return { ...NONE, usage };
    let budget = this.options.totalChars;
    const blocks = results.map((r, i) => {
      const content = r.content.slice(0, Math.max(0, Math.min(this.options.perSourceChars, budget)));
      budget -= content.length;
      return `[${i + 1}] ${r.title}\nURL: ${r.url}${r.date ? `\nDate: ${r.date}` : ''}\n${content}`;
    });
    const intro =
      source === 'scrape'
        ? 'The user linked the following pages; their content is below. Use it to answer.'
        : "Web search results for the user's last message are below. Use them when they are relevant, and say so when they do not answer the question.";
    const cite = flags.enable_web_citations
      ? '\nCite the sources you use with caret superscripts of their numbers, like ^1^ for one source or ^1,2^ for several, right after the statement. Do not use [1], (1) or <sup>1</sup>.'
      : '';
    return {
      source,
      searchResults: results,
      contextText: `${intro}${cite}\n\n${blocks.join('\n\n')}`,
      citations: results.map((r, i) => ({ index: i + 1, title: r.title, url: r.url, date: r.date })),
      usage,
    };
  }
}
