import { z } from 'zod';
import { ModelPricing, priceSchema } from '@svc/pricing';

/** The `/augment/*` tools, by their path. */
export const AUGMENT_TOOLS = ['search', 'scrape', 'text-parser'] as const;
export type AugmentToolName = (typeof AUGMENT_TOOLS)[number];

const toolSchema = z.object({ pricing: z.object({ per_request: priceSchema }).strict() }).strict();

/**
 * The catalog's `augment` section: each tool's price per call (USD and DIEM), charged when the
 * call succeeds. A tool left out is free (still rate-limited under the `augment` class).
 */
export const augmentSectionSchema = z
  .object({ search: toolSchema.optional(), scrape: toolSchema.optional(), 'text-parser': toolSchema.optional() })
  .strict()
  .default({});
export type AugmentSection = z.infer<typeof augmentSectionSchema>;

/** What admission (rate limits, billing) sees of a tool: a model-like entry, billed as `svc-augment-<tool>`. */
export interface AugmentTool {
  id: string;
  name: string;
  type: 'augment';
  rateLimitTier: 'XS';
  pricing: ModelPricing;
}

const FREE = { usd: 0, diem: 0 };
const NAMES: Record<AugmentToolName, string> = { search: 'Web search', scrape: 'Web scrape', 'text-parser': 'Text parser' };

export function augmentToolOf(section: AugmentSection, tool: AugmentToolName): AugmentTool {
  return {
    id: `svc-augment-${tool}`,
    name: NAMES[tool],
    type: 'augment',
    rateLimitTier: 'XS',
    pricing: { per_request: section[tool]?.pricing.per_request ?? FREE },
  };
}
