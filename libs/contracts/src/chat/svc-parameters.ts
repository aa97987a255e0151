/**
 * The spec's `svc_parameters` object of a chat request (docs/chat.md, "svc_parameters").
 * The gateway validates it, merges the model-suffix form into it and fills in the defaults, so
 * the chat service always receives the effective values; the response echoes them.
 */
export const WEB_SEARCH_MODES = ['off', 'on', 'auto'] as const;
export type WebSearchMode = (typeof WEB_SEARCH_MODES)[number];

export interface SvcParameters {
  /** Slug of a public character whose persona applies; absent when none. */
  character_slug?: string;
  strip_thinking_response: boolean;
  disable_thinking: boolean;
  enable_web_search: WebSearchMode;
  enable_web_scraping: boolean;
  enable_x_search: boolean;
  enable_web_citations: boolean;
  include_search_results_in_stream: boolean;
  return_search_results_as_documents: boolean;
  include_svc_system_prompt: boolean;
}

export type SvcParameterName = keyof SvcParameters;

export const SVC_PARAMETER_DEFAULTS: Readonly<Omit<SvcParameters, 'character_slug'>> = {
  strip_thinking_response: false,
  disable_thinking: false,
  enable_web_search: 'off',
  enable_web_scraping: false,
  enable_x_search: false,
  enable_web_citations: false,
  include_search_results_in_stream: false,
  return_search_results_as_documents: false,
  include_svc_system_prompt: true,
};

/** All ten parameter names, in the spec's order. */
export const SVC_PARAMETER_NAMES: readonly SvcParameterName[] = [
  'character_slug',
  'strip_thinking_response',
  'disable_thinking',
  'enable_web_search',
  'enable_web_scraping',
  'enable_x_search',
  'enable_web_citations',
  'include_search_results_in_stream',
  'return_search_results_as_documents',
  'include_svc_system_prompt',
];

/** The parameters the chat service's web augmentation step handles (docs/retrieval.md, "In chat completions"). */
export const WEB_FEATURE_PARAMETERS = [
  'enable_web_search',
  'enable_web_scraping',
  'enable_web_citations',
  'include_search_results_in_stream',
  'return_search_results_as_documents',
] as const satisfies readonly SvcParameterName[];

/** A svc_parameter a raw prompt refuses, and why. */
export interface RawPromptRefusal {
  name: SvcParameterName;
  message: string;
}

/**
 * The svc_parameters that add text to a prompt, each as (part of) a system message: a raw prompt
 * (`RawCompletionParams`, POST /completions) is run as it is, with no chat template and so no
 * system message, so each one asked for is refused, saying why. Those that only act on the output
 * (`strip_thinking_response`) or on search results (citations, documents) are left alone.
 */
export function rawPromptRefusals(svc: Partial<SvcParameters> | undefined): RawPromptRefusal[] {
  const refusals: RawPromptRefusal[] = [];
  const refuse = (name: SvcParameterName, what: string, hint = '') =>
    refusals.push({ name, message: `${what}, which a raw prompt (run with no chat template) cannot take${hint}` });
  if (svc?.include_svc_system_prompt) refuse('include_svc_system_prompt', "the service's system prompt goes in a system message");
  if (svc?.character_slug) refuse('character_slug', "a character's persona goes in a system message");
  if (svc?.disable_thinking)
    refuse('disable_thinking', 'its instruction goes in a system message', '; strip_thinking_response removes think blocks from the text');
  if (svc?.enable_web_search !== undefined && svc.enable_web_search !== 'off') refuse('enable_web_search', 'the search results go in a system message');
  if (svc?.enable_web_scraping) refuse('enable_web_scraping', 'the scraped pages go in a system message');
  return refusals;
}
