/** Image quality tiers priced under `model_spec.pricing.quality`. */
export type QualityTier = 'low' | 'medium' | 'high';

/** Text usage. `promptTokens` counts every prompt token, cached ones included (OpenAI's `prompt_tokens`). */
export interface TextUsage {
  kind: 'text';
  promptTokens: number;
  completionTokens: number;
  /** Of the prompt, tokens read from the prompt cache. */
  cachedPromptTokens?: number;
  /** Of the prompt, tokens written to the prompt cache. */
  cacheWriteTokens?: number;
  /** Web searches run for the request (`enable_web_search`), priced by `pricing.web_search`. */
  webSearches?: number;
  /** Pages scraped successfully for the request (`enable_web_scraping`), priced by `pricing.web_scrape`. */
  webScrapes?: number;
}

/**
 * What a request consumed (or may consume at most), in the units its model is priced in.
 * Counts only, never prompts or outputs. `@svc/pricing` turns it into money.
 */
export type BillableUsage =
  | TextUsage
  | { kind: 'embedding'; inputTokens: number }
  | { kind: 'image'; images: number; resolution?: string; quality?: QualityTier }
  | { kind: 'upscale'; images: number; factor: '2x' | '4x' }
  | { kind: 'image-edit'; edits: number; resolution?: string; quality?: QualityTier; inputImages?: number }
  | { kind: 'tts'; characters: number }
  | { kind: 'asr'; audioMs: number }
  | { kind: 'music'; generations?: number; durationMs?: number; characters?: number }
  | VideoUsage
  | { kind: 'rpc'; credits: number }
  /** A request priced as a whole (`/augment/*` tools), by `pricing.per_request`. */
  | { kind: 'request'; requests: number };

/** How a video model is priced (`model_spec.pricing.video`, docs/video.md); absent: per second by resolution. */
export type VideoRate = 'resolution' | 'megapixel' | 'video-input' | 'upscale' | 'interpolation';

/**
 * A video job: `seconds` of output; `resolution` is the priced tier (`720p`, or `1x`/`2x`/`4x` for
 * upscaling). `pixels` (one output frame) for the megapixel and video-input rates, `inputSeconds`
 * of reference video for the video-input rate, `fps` of the output for upscaling (48 or more
 * doubles) and interpolation (priced per output frame).
 */
export interface VideoUsage {
  kind: 'video';
  seconds: number;
  resolution: string;
  audio?: boolean;
  rate?: VideoRate;
  pixels?: number;
  inputSeconds?: number;
  fps?: number;
}

export type BillableUsageKind = BillableUsage['kind'];

/**
 * Usage reported at settlement. A text prompt count may be unknown (`null`): a stream cut before
 * the engine reported it. Billing then uses the prompt count it reserved for (an upper bound).
 */
export type SettledUsage = Exclude<BillableUsage, TextUsage> | (Omit<TextUsage, 'promptTokens'> & { promptTokens: number | null });
