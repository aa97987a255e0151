import { ChatMessage } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { ScrapedPage, Scraper } from '../scrape/scraper';
import { SearchProvider } from '../search/search-provider';
import { WebSearch } from '../search/web-search';
import { AugmentFlags, ConversationAugmenter } from './conversation-augmenter';
import { detectUrls, needsWebSearch, searchQueryOf } from './query-classifier';

const user = (content: string): ChatMessage[] => [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'earlier question' },
  { role: 'assistant', content: 'earlier answer' },
  { role: 'user', content },
];
const flags = (over: Partial<AugmentFlags> = {}): AugmentFlags => ({
  enable_web_search: 'off',
  enable_web_scraping: false,
  enable_web_citations: false,
  ...over,
});

function setup(options: { configured?: boolean; failingUrls?: string[]; searchFails?: boolean } = {}) {
  const queries: string[] = [];
  const scraped: string[] = [];
  const provider: SearchProvider = {
    name: 'searxng',
    search: async (q, limit) => {
      queries.push(q);
      if (options.searchFails) throw new DomainError(ErrorCode.Upstream, 'provider down');
      return Array.from({ length: limit }, (_, i) => ({
        title: `T${i + 1}`,
        url: `https://r.example/${i + 1}`,
        content: `snippet ${i + 1}`,
        date: i === 0 ? '2026-11-01' : '',
      }));
    },
  };
  const scraper = {
    scrape: async (url: string): Promise<ScrapedPage> => {
      scraped.push(url);
      if (options.failingUrls?.includes(url)) throw new DomainError(ErrorCode.Validation, 'refused');
      return { url, title: `Page ${url}`, content: `content of ${url}`, truncated: false };
    },
  } as unknown as Scraper;
  const augmenter = new ConversationAugmenter(new WebSearch(options.configured === false ? undefined : provider), scraper, { searchLimit: 2 });
  return { augmenter, queries, scraped };
}

describe('augmentConversation', () => {
  it('does nothing with every flag off', async () => {
    const { augmenter, queries } = setup();
    expect(await augmenter.augmentConversation(user('what is new today?'), flags())).toMatchObject({ source: 'none', contextText: '', citations: [] });
    expect(queries).toEqual([]);
  });

  it('"on" searches with the last user message and returns results, numbered context and citations', async () => {
    const { augmenter, queries } = setup();
    const aug = await augmenter.augmentConversation(user('Tell me about  lanterns'), flags({ enable_web_search: 'on', enable_web_citations: true }));
    expect(queries).toEqual(['Tell me about lanterns']);
    expect(aug.source).toBe('search');
    expect(aug.query).toBe('Tell me about lanterns');
    expect(aug.citations).toEqual([
      { index: 1, title: 'T1', url: 'https://r.example/1', date: '2026-11-01' },
      { index: 2, title: 'T2', url: 'https://r.example/2', date: '' },
    ]);
    expect(aug.contextText).toContain('[1] T1\nURL: https://r.example/1\nDate: 2026-11-01\nsnippet 1');
    expect(aug.contextText).toContain('[2] T2\nURL: https://r.example/2\nsnippet 2');
    expect(aug.contextText).toContain('like ^1^ for one source or ^1,2^ for several');
    expect(aug.usage).toEqual({ searches: 1, scrapedUrls: 0, failedUrls: 0 });
  });

  it('"on" without a provider is a 400 saying web search is not configured; "auto" proceeds without search', async () => {
    const { augmenter } = setup({ configured: false });
    const err = (await augmenter.augmentConversation(user('news today'), flags({ enable_web_search: 'on' })).catch((e: unknown) => e)) as DomainError;
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^Web search is not configured on this server/);
    expect(augmenter.searchConfigured()).toBe(false);
    expect((await augmenter.augmentConversation(user('news today'), flags({ enable_web_search: 'auto' }))).source).toBe('none');
  });

  it('"auto" searches only when the classifier says the message wants fresh facts, and skips provider failures', async () => {
    const { augmenter, queries } = setup();
    expect((await augmenter.augmentConversation(user('write me a poem about the sea'), flags({ enable_web_search: 'auto' }))).source).toBe('none');
    expect((await augmenter.augmentConversation(user('what is the latest lantern news?'), flags({ enable_web_search: 'auto' }))).source).toBe('search');
    expect(queries).toEqual(['what is the latest lantern news?']);
    const failing = setup({ searchFails: true });
    expect((await failing.augmenter.augmentConversation(user('news today'), flags({ enable_web_search: 'auto' }))).source).toBe('none');
    await expect(failing.augmenter.augmentConversation(user('news today'), flags({ enable_web_search: 'on' }))).rejects.toThrow('provider down');
  });

  it('scrapes up to 5 URLs of the last user message concurrently, bills only successes, and skips search when any succeeded', async () => {
    const { augmenter, queries, scraped } = setup({ failingUrls: ['https://b.example/'] });
    const text =
      'compare https://a.example/x, https://b.example/ and https://a.example/x plus https://c.example/1 https://d.example/ https://e.example/ https://f.example/';
    const aug = await augmenter.augmentConversation(user(text), flags({ enable_web_scraping: true, enable_web_search: 'on' }));
    expect(scraped).toEqual(['https://a.example/x', 'https://b.example/', 'https://c.example/1', 'https://d.example/', 'https://e.example/']);
    expect(aug.source).toBe('scrape');
    expect(aug.usage).toEqual({ searches: 0, scrapedUrls: 4, failedUrls: 1 });
    expect(aug.citations.map((c) => c.url)).toEqual(['https://a.example/x', 'https://c.example/1', 'https://d.example/', 'https://e.example/']);
    expect(aug.contextText).toContain('content of https://c.example/1');
    expect(queries).toEqual([]);
  });

  it('falls back to search when every scrape failed, and to nothing when search is off', async () => {
    const { augmenter, queries } = setup({ failingUrls: ['https://a.example/'] });
    const both = await augmenter.augmentConversation(user('see https://a.example/ please'), flags({ enable_web_scraping: true, enable_web_search: 'on' }));
    expect(both.source).toBe('search');
    expect(queries).toEqual(['see please']);
    const onlyScrape = await augmenter.augmentConversation(user('see https://a.example/'), flags({ enable_web_scraping: true }));
    expect(onlyScrape).toMatchObject({ source: 'none', usage: { scrapedUrls: 0, failedUrls: 1 } });
  });
});

describe('query helpers', () => {
  it('detects URLs without trailing punctuation, derives queries, classifies', () => {
    expect(detectUrls('see (https://a.example/x). and http://b.example/?q=1, ok')).toEqual(['https://a.example/x', 'http://b.example/?q=1']);
    expect(searchQueryOf(`  why   https://x.example/ is ${'y'.repeat(500)}`)).toHaveLength(400);
    expect(needsWebSearch('Who won the match yesterday?')).toBe(true);
    expect(needsWebSearch('Explain recursion simply')).toBe(false);
  });
});
