export const WEB_SEARCH = Symbol('WEB_SEARCH');
export const SCRAPER = Symbol('SCRAPER');
export const TEXT_PARSER = Symbol('TEXT_PARSER');
/** ConversationAugmenter: `augmentConversation(messages, svcParameters)` for chat completions (docs/retrieval.md). */
export const CONVERSATION_AUGMENTER = Symbol('CONVERSATION_AUGMENTER');
