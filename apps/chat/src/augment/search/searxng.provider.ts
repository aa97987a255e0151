import { getJson, text } from './provider-http';
import { SearchProvider, SearchResult } from './search-provider';

interface SearxngBody {
  results?: Array<{ title?: unknown; url?: unknown; content?: unknown; publishedDate?: unknown; pubdate?: unknown }>;
}

/** A SearXNG instance's JSON API (`/search?format=json&q=`; `json` must be enabled in its settings.yml `search.formats`). */
export class SearxngProvider implements SearchProvider {
  readonly name = 'searxng' as const;

  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async search(query: string, limit: number, signal?: AbortSignal): Promise<SearchResult[]> {
    const url = new URL('search', this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    const body = (await getJson(this.name, url, {}, this.timeoutMs, signal)) as SearxngBody;
    return (body.results ?? [])
      .map((r) => ({ title: text(r.title), url: text(r.url), content: text(r.content), date: text(r.publishedDate) || text(r.pubdate) }))
      .filter((r) => r.url !== '')
      .slice(0, limit);
  }
}
