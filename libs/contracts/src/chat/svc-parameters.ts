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
