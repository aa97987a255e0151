import { DomainError, ErrorCode } from '@svc/errors';
import { BraveSearchProvider } from './brave.provider';
import { SearchProvider, SearchResult } from './search-provider';
import { SearxngProvider } from './searxng.provider';

export interface WebSearchConfig {
  SEARXNG_URL?: string;
  BRAVE_SEARCH_API_KEY?: string;
  BRAVE_SEARCH_URL: string;
  /** Which configured provider answers; unset: SearXNG when configured, else Brave. */
  SEARCH_PROVIDER?: 'searxng' | 'brave';
  SEARCH_TIMEOUT_MS: number;
}

/** The operator's search provider, or none: `searchConfigured()` is false and `search` is a 400. */
export class WebSearch {
  constructor(private readonly provider: SearchProvider | undefined) {}

  static fromConfig(config: WebSearchConfig): WebSearch {
    const providers: SearchProvider[] = [];
    if (config.SEARXNG_URL) providers.push(new SearxngProvider(config.SEARXNG_URL, config.SEARCH_TIMEOUT_MS));
    if (config.BRAVE_SEARCH_API_KEY) providers.push(new BraveSearchProvider(config.BRAVE_SEARCH_API_KEY, config.BRAVE_SEARCH_URL, config.SEARCH_TIMEOUT_MS));
    const chosen = config.SEARCH_PROVIDER ? providers.find((p) => p.name === config.SEARCH_PROVIDER) : providers[0];
    if (config.SEARCH_PROVIDER && !chosen)
      throw new Error(
        `SEARCH_PROVIDER=${config.SEARCH_PROVIDER} but that provider is not configured (set ${config.SEARCH_PROVIDER === 'brave' ? 'BRAVE_SEARCH_API_KEY' : 'SEARXNG_URL'})`,
      );
    return new WebSearch(chosen);
  }

  searchConfigured(): boolean {
    return this.provider !== undefined;
  }

  get providerName(): string | undefined {
    return this.provider?.name;
  }

  async search(query: string, limit: number, signal?: AbortSignal): Promise<SearchResult[]> {
    if (!this.provider) throw new DomainError(ErrorCode.Validation, 'Web search is not configured on this server (set SEARXNG_URL or BRAVE_SEARCH_API_KEY).');
    return this.provider.search(query, limit, signal);
  }
}
