import { Inject, Injectable } from '@nestjs/common';
import { ModelDefinition } from '@svc/catalog';
import { ChatMessage, SvcParameters, SvcParametersEcho, ToolCall } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { CONVERSATION_AUGMENTER } from '../../augment/augment.tokens';
import { CitationRewriter } from '../../augment/conversation/citation-rewriter';
import { ConversationAugmentation, ConversationAugmenter } from '../../augment/conversation/conversation-augmenter';
import { searchDocumentsToolCall, webSearchCitations } from '../../augment/conversation/search-results-format';
import { contextBudgetBytes, fitContext, withContext } from './context-budget';
import { TextFilter } from './filter-chain';

/** What web augmentation did for one chat request, and what it adds to the answer. */
export class AugmentedChat {
  constructor(
    readonly svc: SvcParameters,
    readonly augmentation: ConversationAugmentation | null,
    /** The prompt the model sees (with the web context as a system section when there is one). */
    readonly messages: ChatMessage[],
    /** The context as injected (maybe truncated to the model's context); '' when none. */
    readonly injected: string,
  ) {}

  private get sources(): number {
    return this.augmentation?.citations.length ?? 0;
  }

  /**
   * Citation markers in the output, once per choice: with sources, `enable_web_citations` rewrites
   * `[1]`, `(1)`, `<sup>1</sup>` into `^1^`, and without it markers are suppressed (the model was
   * shown numbered sources). Without sources the text is left alone.
   */
  citationFilter(): TextFilter | undefined {
    if (this.sources === 0) return undefined;
    return new CitationRewriter({ sources: this.sources, mode: this.svc.enable_web_citations ? 'rewrite' : 'suppress' });
  }

  rewriteCitations(text: string): string {
    const filter = this.citationFilter();
    return filter ? filter.push(text) + filter.flush() : text;
  }

  /** The first chunk of a stream with `include_search_results_in_stream`, when there are sources. */
  streamedResults() {
    return this.svc.include_search_results_in_stream && this.sources > 0 ? this.augmentation!.searchResults : undefined;
  }

  /** `return_search_results_as_documents`: the tool call carrying the sources, when there are any. */
  documentsToolCall(): ToolCall | undefined {
    return this.svc.return_search_results_as_documents && this.sources > 0 ? searchDocumentsToolCall(this.augmentation!.searchResults) : undefined;
  }

  /** The response's `svc_parameters`: the effective ones, plus `web_search_citations` when sources were used. */
  echo(): SvcParametersEcho {
    return this.sources > 0 ? { ...this.svc, web_search_citations: webSearchCitations(this.augmentation!.searchResults) } : this.svc;
  }

  /** Billable quantities, settled with the completion: searches run and pages read (failed fetches are free). */
  billable(): { webSearches?: number; webScrapes?: number } {
    const usage = this.augmentation?.usage;
    if (!usage) return {};
    return { ...(usage.searches ? { webSearches: usage.searches } : {}), ...(usage.scrapedUrls ? { webScrapes: usage.scrapedUrls } : {}) };
  }
}

export const wantsAugmentation = (svc: SvcParameters) => svc.enable_web_search !== 'off' || svc.enable_web_scraping;

/**
 * The web step of a chat request (docs/retrieval.md, "In chat completions"): search and/or scrape
 * per `svc_parameters`, before generation, and fit the context into the model's window.
 */
@Injectable()
export class ChatAugmentation {
  constructor(@Inject(CONVERSATION_AUGMENTER) private readonly augmenter: ConversationAugmenter) {}

  /** Refuses now what cannot run (before a stream opens): `enable_web_search: "on"` without a provider. */
  assertAvailable(svc: SvcParameters): void {
    if (svc.enable_web_search === 'on' && !this.augmenter.searchConfigured()) {
      const message =
        'Web search is not configured on this server (enable_web_search "on" needs SEARXNG_URL or BRAVE_SEARCH_API_KEY); use "auto" to proceed without it.';
      throw new DomainError(ErrorCode.Validation, message, {
        _errors: [],
        svc_parameters: { _errors: [], enable_web_search: { _errors: ['web search is not configured'] } },
      });
    }
  }

  /**
   * `messages` is the prompt without web context (system prompt assembled); `maxTokens` the
   * completion cap; `heldBytes` the most context the request's hold covers (its `webContextMaxBytes`).
   */
  async prepare(
    model: ModelDefinition,
    svc: SvcParameters,
    messages: ChatMessage[],
    maxTokens: number,
    signal: AbortSignal,
    heldBytes?: number,
  ): Promise<AugmentedChat> {
    if (!wantsAugmentation(svc)) return new AugmentedChat(svc, null, messages, '');
    this.assertAvailable(svc);
    const augmentation = await this.augmenter.augmentConversation(messages, svc, signal);
    const injected = fitContext(augmentation.contextText, contextBudgetBytes(model, messages, maxTokens, heldBytes));
    return new AugmentedChat(svc, augmentation, withContext(messages, injected), injected);
  }
}
