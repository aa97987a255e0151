import { MODERATION_CATEGORIES, ModerationCategory, ModerationResult } from '@svc/contracts';

/**
 * The categories the embedded image classifier really scores. nsfwjs answers Drawing, Hentai,
 * Neutral, Porn and Sexy; their adult part (Porn + Hentai + Sexy, as safe mode sums it) is OpenAI's
 * `sexual`. Nothing in it tells minors, violence, self-harm, hate, harassment or illicit content
 * apart, so those stay false with score 0 and no applied input type.
 */
export const IMAGE_SAFETY_CATEGORIES: readonly ModerationCategory[] = ['sexual'];

/** One OpenAI-shaped result from the classifier's adult probability; flagged from `threshold` on (SAFE_MODE_NSFW_THRESHOLD). */
export function imageSafetyResult(adult: number, threshold: number): ModerationResult {
  const categories: Record<string, boolean> = {};
  const scores: Record<string, number> = {};
  const applied: Record<string, Array<'text' | 'image'>> = {};
  for (const category of MODERATION_CATEGORIES) {
    const scored = IMAGE_SAFETY_CATEGORIES.includes(category);
    scores[category] = scored ? adult : 0;
    categories[category] = scored && adult >= threshold;
    applied[category] = scored ? ['image'] : [];
  }
  return { flagged: Object.values(categories).some(Boolean), categories, category_scores: scores, category_applied_input_types: applied };
}
