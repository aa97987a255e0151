/** One web search result, as `POST /augment/search` returns it. `date` is '' when the provider gives none. */
export interface SearchResult {
  title: string;
  url: string;
  content: string;
  date: string;
}

/** A web search API configured by the operator (SearXNG, Brave Search). */
export interface SearchProvider {
  readonly name: 'searxng' | 'brave';
  search(query: string, limit: number, signal?: AbortSignal): Promise<SearchResult[]>;
}
