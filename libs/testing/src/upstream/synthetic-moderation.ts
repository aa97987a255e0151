import { MODERATION_CATEGORIES } from '@svc/contracts';

const FLAG = /\[flag:([a-z/-]+)\]/g;

/**
 * The fake upstream's `POST /v1/moderations` answer, in OpenAI's shape. Nothing is judged: a text
 * holding the marker `[flag:<category>]` is flagged in that category with score 1, everything
 * else is false with score 0. One result per string; one for a multi-modal array (its text parts
 * read together). A string is the error message for a body that is not a moderation request.
 */
export function moderationBody(body: unknown, id: string): object | string {
  const input = (body as { input?: unknown } | null)?.input;
  const model = (body as { model?: unknown } | null)?.model;
  let texts: string[][];
  if (typeof input === 'string') texts = [[input]];
  else if (Array.isArray(input) && input.length > 0 && input.every((i) => typeof i === 'string')) texts = (input as string[]).map((t) => [t]);
  else if (Array.isArray(input) && input.length > 0 && input.every((i) => typeof i === 'object' && i !== null && 'type' in i))
    texts = [(input as Array<{ type: string; text?: unknown }>).flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : []))];
  else return 'input must be a string, an array of strings or an array of parts.';
  const results = texts.map((parts) => {
    const flagged = new Set(parts.flatMap((t) => [...t.matchAll(FLAG)].map((m) => m[1])));
    const categories = Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, flagged.has(c)]));
    const scores = Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, flagged.has(c) ? 1 : 0]));
    const applied = Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, flagged.has(c) ? ['text'] : []]));
    return { flagged: flagged.size > 0, categories, category_scores: scores, category_applied_input_types: applied };
  });
  return { id, model: typeof model === 'string' ? model : 'fake-moderation', results };
}
