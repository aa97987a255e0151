import { z } from 'zod';
import { WEB_SEARCH_MODES } from '@svc/contracts';

/** Character slugs: lowercase letters, digits and dashes (the reference's `alan-watts`). */
export const CHARACTER_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;
export const characterSlugSchema = z.string().regex(CHARACTER_SLUG_PATTERN, 'must be a character slug: 1-100 lowercase letters, digits and dashes');

const flag = z.boolean({ message: 'must be a boolean (true or false)' });

/**
 * `svc_parameters` of a chat request: every field optional; booleans must be JSON booleans.
 * Unknown keys are dropped (the spec lets undocumented fields through unvalidated), unlike the
 * model suffix, where an unknown name is a 400: a typo there would otherwise go unnoticed.
 */
export const svcParametersSchema = z.object({
  character_slug: characterSlugSchema.optional(),
  strip_thinking_response: flag.optional(),
  disable_thinking: flag.optional(),
  enable_web_search: z.enum(WEB_SEARCH_MODES, { message: `must be one of ${WEB_SEARCH_MODES.join(', ')}` }).optional(),
  enable_web_scraping: flag.optional(),
  enable_x_search: flag.optional(),
  enable_web_citations: flag.optional(),
  include_search_results_in_stream: flag.optional(),
  return_search_results_as_documents: flag.optional(),
  include_svc_system_prompt: flag.optional(),
});
export type SvcParametersInput = z.infer<typeof svcParametersSchema>;
