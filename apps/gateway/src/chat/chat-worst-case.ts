import { Catalog, ModelDefinition } from '@svc/catalog';
import {
  ChatCompletionParams,
  CountPromptReply,
  isRawCompletion,
  PromptBudgetReply,
  SVC_PARAMETER_DEFAULTS,
  TextCompletionParams,
  TextUsage,
  WEB_CONTEXT_MAX_BYTES,
} from '@svc/contracts';

/** Tokens a chat template adds around each message (role markers), generously. */
const PER_MESSAGE_OVERHEAD = 8;
/** Tokens around the whole prompt (begin-of-text, the assistant's header), generously. */
const TEMPLATE_OVERHEAD = 32;
/** Tokens a raw prompt has besides its text's (begin-of-text, a leading space, an end token), generously. */
const RAW_PROMPT_OVERHEAD = 8;
/** Tokens a template adds around a tool or response-format schema. */
const SCHEMA_OVERHEAD = 256;
const DEFAULT_MAX_COMPLETION = 512;
/** Web augmentation (docs/retrieval.md): at most one search and 5 scraped pages per request. */
const MAX_WEB_SEARCHES = 1;
const MAX_WEB_SCRAPES = 5;

/** What the chat service adds to this request's prompt besides the caller's messages. */
export interface PromptAdditions {
  /** The service's own additions (its system prompt, the no-think instruction). */
  budget: PromptBudgetReply;
  /** UTF-8 bytes of the character's persona, when the request names a character. */
  personaBytes: number;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Whether the chat service adds web context (search or scraping) to this request's prompt. */
export function usesWebContext(params: TextCompletionParams): boolean {
  const svc = params.svc_parameters ?? SVC_PARAMETER_DEFAULTS;
  return svc.enable_web_search !== 'off' || svc.enable_web_scraping;
}

/**
 * The most a chat request can be charged, before any model runs: the hold (docs/billing.md,
 * "What a hold covers"). The prompt counts everything the chat service sends to the engine: the
 * caller's messages with their parts and tool calls (as JSON, which is never shorter than the
 * text), the service's system prompt, the character's persona, the no-think instruction, tool and
 * response-format schemas, and the web context at its cap. Every token of a byte-level or
 * byte-fallback tokenizer covers at least one UTF-8 byte, so bytes bound tokens. A model that
 * declares its context cannot take a longer prompt (the service refuses it), so that bounds it
 * too. The prompt is billed once; the completion once per choice (`n`); both twice where an
 * embedded engine may retry a checked answer (tools, a json_schema response format), as the
 * engine counts both attempts. Fallback models count with the largest context and completion cap
 * among them. A raw prompt (POST /completions) is its text's bytes and its begin-of-text token:
 * nothing is added to it (the chat service refuses what would add to it).
 */
export function chatWorstCase(
  params: TextCompletionParams,
  model: ModelDefinition,
  additions: PromptAdditions,
  catalog?: Catalog,
  /** The web context's bytes: its cap, or what a count found (the run is then held to it). */
  webContextBytes = WEB_CONTEXT_MAX_BYTES,
): TextUsage {
  const svc = params.svc_parameters ?? SVC_PARAMETER_DEFAULTS;
  const web = usesWebContext(params);
  let prompt = isRawCompletion(params) ? RAW_PROMPT_OVERHEAD + bytes(params.prompt) : chatPromptBound(params, additions);
  if (params.tools?.length) prompt += bytes(JSON.stringify(params.tools)) + SCHEMA_OVERHEAD;
  if (params.response_format) prompt += bytes(JSON.stringify(params.response_format)) + SCHEMA_OVERHEAD;
  if (web) prompt += webContextBytes + PER_MESSAGE_OVERHEAD;

  const candidates = [model, ...(params.fallbacks ?? []).map((id) => catalog?.resolve(id, 'text')).filter((m): m is ModelDefinition => m !== undefined)];
  const contexts = candidates.map((m) => m.availableContextTokens);
  if (contexts.every((c): c is number => c !== undefined && c > 0)) prompt = Math.min(prompt, Math.max(...contexts));
  const completion = Math.max(...candidates.map((m) => completionCap(m, params)));
  // An embedded engine checks a tool call or a json_schema answer and may generate it once more.
  const evaluations = checksAnswer(params) && candidates.some((m) => m.engine.kind === 'embedded-llama') ? 2 : 1;
  return {
    kind: 'text',
    promptTokens: prompt * evaluations,
    completionTokens: completion * (params.n ?? 1) * evaluations,
    ...(svc.enable_web_search !== 'off' ? { webSearches: MAX_WEB_SEARCHES } : {}),
    ...(svc.enable_web_scraping ? { webScrapes: MAX_WEB_SCRAPES } : {}),
  };
}

/** A chat request's messages under a template, with what the chat service adds to them (system prompt, persona, instruction). */
function chatPromptBound(params: ChatCompletionParams, additions: PromptAdditions): number {
  const svc = params.svc_parameters ?? SVC_PARAMETER_DEFAULTS;
  let prompt = TEMPLATE_OVERHEAD + PER_MESSAGE_OVERHEAD + additions.budget.separatorBytes + additions.personaBytes;
  for (const message of params.messages) prompt += bytes(JSON.stringify(message)) + PER_MESSAGE_OVERHEAD;
  if (svc.include_svc_system_prompt) prompt += additions.budget.systemPromptBytes;
  if (svc.disable_thinking) prompt += additions.budget.noThinkInstructionBytes;
  return prompt;
}

/** Whether the answer is checked against a schema (a tool call's arguments, a json_schema response format), so an embedded engine may retry it. */
function checksAnswer(params: TextCompletionParams): boolean {
  const format = params.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
  return Boolean(params.tools?.length) || (format?.type === 'json_schema' && format.json_schema?.schema !== undefined);
}

/**
 * The worst case with the prompt as its engine counted it (chat.query.count-prompt.v1) instead of
 * bounded by bytes: asked only when the byte bound does not fit the credit left (docs/billing.md,
 * "Exact at the margin"). A count of a request with web search includes the context it found
 * (the run is held to that size); a prompt the engine may evaluate twice (a checked answer
 * retried) counts twice, with its completion. Where the engine could not count, the byte bound
 * with the context the count found (null without one: nothing was learnt).
 */
export function exactChatWorstCase(
  params: TextCompletionParams,
  model: ModelDefinition,
  counted: CountPromptReply,
  additions: PromptAdditions,
): TextUsage | null {
  if (counted.promptTokens === null) {
    return counted.webContextBytes === undefined ? null : chatWorstCase(params, model, additions, undefined, counted.webContextBytes);
  }
  const svc = params.svc_parameters ?? SVC_PARAMETER_DEFAULTS;
  const web = usesWebContext(params);
  let prompt = counted.promptTokens + (web && counted.webContextBytes === undefined ? WEB_CONTEXT_MAX_BYTES + PER_MESSAGE_OVERHEAD : 0);
  if (model.availableContextTokens !== undefined && model.availableContextTokens > 0) prompt = Math.min(prompt, model.availableContextTokens);
  const evaluations = Math.max(1, counted.evaluations);
  return {
    kind: 'text',
    promptTokens: prompt * evaluations,
    completionTokens: completionCap(model, params) * (params.n ?? 1) * evaluations,
    ...(svc.enable_web_search !== 'off' ? { webSearches: MAX_WEB_SEARCHES } : {}),
    ...(svc.enable_web_scraping ? { webScrapes: MAX_WEB_SCRAPES } : {}),
  };
}

/** Said with a 402 of a request that sets no max_tokens: it was priced for the model's whole completion cap. */
export function completionCapHint(params: TextCompletionParams, model: ModelDefinition): string | undefined {
  if (params.max_tokens !== undefined) return undefined;
  return `The request sets no max_tokens, so it was priced for ${model.id}'s completion cap of ${completionCap(model, params)} tokens; with a smaller max_tokens it needs less credit.`;
}

export function completionCap(model: ModelDefinition, params: TextCompletionParams): number {
  const cap = model.maxCompletionTokens ?? DEFAULT_MAX_COMPLETION;
  return Math.min(params.max_tokens ?? cap, cap);
}
