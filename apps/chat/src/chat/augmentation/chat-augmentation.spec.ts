import { ModelDefinition } from '@svc/catalog';
import { ChatMessage, SVC_PARAMETER_DEFAULTS, SvcParameters, WEB_CONTEXT_MAX_BYTES, WebSearchResult } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { ConversationAugmentation, ConversationAugmenter } from '../../augment/conversation/conversation-augmenter';
import { ChatAugmentation } from './chat-augmentation';
import { contextBudgetBytes, fitContext, MIN_CONTEXT_BYTES, withContext } from './context-budget';
import { chainFilters } from './filter-chain';
import { ThinkStripper } from '../output/think-stripper';
import { CitationRewriter } from '../../augment/conversation/citation-rewriter';

const model = (availableContextTokens?: number) => ({ id: 'm', capabilities: {}, availableContextTokens }) as unknown as ModelDefinition;
const svc = (over: Partial<SvcParameters> = {}): SvcParameters => ({ ...SVC_PARAMETER_DEFAULTS, ...over });
const results: WebSearchResult[] = [
  { title: 'One', url: 'https://one.test/', content: 'first source', date: '' },
  { title: 'Two', url: 'https://two.test/', content: 'second source', date: '2026-01-01' },
];
const found = (context = 'CONTEXT'): ConversationAugmentation => ({
  source: 'search',
  searchResults: results,
  contextText: context,
  citations: results.map((r, i) => ({ index: i + 1, title: r.title, url: r.url, date: r.date })),
  usage: { searches: 1, scrapedUrls: 0, failedUrls: 0 },
  query: 'q',
});

function augmenter(answer: ConversationAugmentation, configured = true) {
  const calls: ChatMessage[][] = [];
  const fake = {
    searchConfigured: () => configured,
    augmentConversation: async (messages: ChatMessage[]) => (calls.push(messages), answer),
  } as unknown as ConversationAugmenter;
  return { service: new ChatAugmentation(fake), calls };
}

const messages: ChatMessage[] = [
  { role: 'system', content: 'SERVICE' },
  { role: 'user', content: 'What is new today?' },
];
const signal = new AbortController().signal;

describe('context budget', () => {
  it('leaves room for the prompt and the completion, in bytes', () => {
    // 8 for the context, 7+8 and 18+8 for the messages.
    expect(contextBudgetBytes(model(1000), messages, 100)).toBe(1000 - 8 - 15 - 26 - 100);
    expect(contextBudgetBytes(model(), messages, 100)).toBe(WEB_CONTEXT_MAX_BYTES);
    expect(contextBudgetBytes(model(1_000_000), messages, 100)).toBe(WEB_CONTEXT_MAX_BYTES);
  });

  it('cuts a long context on a character boundary with a marker, and drops it when no source fits', () => {
    const context = 'é'.repeat(500);
    const cut = fitContext(context, 301);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(301);
    expect(cut).toMatch(/^é+\n\[web context truncated\]$/);
    expect(fitContext(context, 2000)).toBe(context);
    expect(fitContext(context, MIN_CONTEXT_BYTES - 1)).toBe('');
  });

  it('adds the context as a section of the leading system message, or as one', () => {
    expect(withContext(messages, 'CTX')[0]).toEqual({ role: 'system', content: 'SERVICE\n\nCTX' });
    expect(withContext(messages.slice(1), 'CTX')).toEqual([{ role: 'system', content: 'CTX' }, messages[1]]);
    expect(withContext(messages, '')).toBe(messages);
  });
});

describe('ChatAugmentation', () => {
  it('does nothing unless search or scraping is on', async () => {
    const { service, calls } = augmenter(found());
    const web = await service.prepare(model(), svc({ enable_web_citations: true, return_search_results_as_documents: true }), messages, 10, signal);
    expect(calls).toHaveLength(0);
    expect(web.messages).toBe(messages);
    expect(web.citationFilter()).toBeUndefined();
    expect(web.documentsToolCall()).toBeUndefined();
    expect(web.billable()).toEqual({});
    expect(web.echo()).not.toHaveProperty('web_search_citations');
  });

  it('refuses "on" without a provider, lets "auto" through', async () => {
    const { service } = augmenter(found(), false);
    await expect(service.prepare(model(), svc({ enable_web_search: 'on' }), messages, 10, signal)).rejects.toBeInstanceOf(DomainError);
    expect(() => service.assertAvailable(svc({ enable_web_search: 'on' }))).toThrow(/not configured/);
    expect(() => service.assertAvailable(svc({ enable_web_search: 'auto' }))).not.toThrow();
  });

  it('injects the context, fitted, and exposes results, tool call, echo and billing', async () => {
    const { service } = augmenter(found('X'.repeat(5000)));
    const params = svc({ enable_web_search: 'on', include_search_results_in_stream: true, return_search_results_as_documents: true });
    const web = await service.prepare(model(1000), params, messages, 100, signal);
    expect(web.messages).toHaveLength(2);
    expect(web.messages[0].content.startsWith('SERVICE\n\nXXX')).toBe(true);
    expect(Buffer.byteLength(web.injected)).toBeLessThanOrEqual(contextBudgetBytes(model(1000), messages, 100));
    expect(web.streamedResults()).toEqual(results);
    expect(JSON.parse(web.documentsToolCall()!.function.arguments).documents[1]).toEqual({
      page_content: 'second source',
      metadata: { index: 2, title: 'Two', url: 'https://two.test/', date: '2026-01-01' },
    });
    expect(web.documentsToolCall()!.function.name).toBe('svc_web_search_documents');
    expect(web.echo().web_search_citations).toEqual(results);
    expect(web.billable()).toEqual({ webSearches: 1 });
  });

  it('rewrites citation markers with enable_web_citations and suppresses them without', async () => {
    const on = await augmenter(found()).service.prepare(model(), svc({ enable_web_search: 'auto', enable_web_citations: true }), messages, 10, signal);
    expect(on.rewriteCitations('Blue [1][2], not (3).')).toBe('Blue ^1,2^, not (3).');
    const off = await augmenter(found()).service.prepare(model(), svc({ enable_web_search: 'auto' }), messages, 10, signal);
    expect(off.rewriteCitations('Blue [1] and <sup>2</sup>.')).not.toMatch(/\[1\]|<sup>|\^/);
  });
});

describe('filter chain', () => {
  it('strips think blocks before rewriting citations, at any split', () => {
    const text = '<think>see [1]</think>Sky is blue [1] and (2).';
    for (let cut = 1; cut < text.length; cut++) {
      const f = chainFilters(new ThinkStripper(), new CitationRewriter({ sources: 2 }));
      expect(f.push(text.slice(0, cut)) + f.push(text.slice(cut)) + f.flush()).toBe('Sky is blue ^1^ and ^2^.');
    }
  });
});
