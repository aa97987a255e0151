import { getJson, text } from './provider-http';
import { SearchProvider, SearchResult } from './search-provider';

export const BRAVE_SEARCH_URL = 'https://api.search.brave.com/res/v1/web/search';

interface BraveBody {
  web?: { results?: Array<{ title?: unknown; url?: unknown; description?: unknown; page_age?: unknown; age?: unknown }> };
}

/** Brave Search API (web search): `X-Subscription-Token` auth, at most 20 results per call. */
export class BraveSearchProvider implements SearchProvider {
  readonly name = 'brave' as const;

  constructor(
    private readonly apiKey: string,
    private readonly endpoint: string,
    private readonly timeoutMs: number,
  ) {}

  async search(query: string, limit: number, signal?: AbortSignal): Promise<SearchResult[]> {
    const url = new URL(this.endpoint);
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(Math.min(20, limit)));
    const body = (await getJson(this.name, url, { 'x-subscription-token': this.apiKey }, this.timeoutMs, signal)) as BraveBody;
    return (body.web?.results ?? [])
      .map((r) => ({ title: stripTags(text(r.title)), url: text(r.url), content: stripTags(text(r.description)), date: text(r.page_age) || text(r.age) }))
      .filter((r) => r.url !== '')
      .slice(0, limit);
  }
}

/** Brave marks matches with `<strong>`. */
const stripTags = (s: string): string => s.replace(/<\/?[a-z][^>]*>/gi, '');
