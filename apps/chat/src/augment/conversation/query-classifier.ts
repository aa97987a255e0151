/**
 * For `enable_web_search: "auto"`: whether a message likely needs fresh facts from the web. A
 * keyword heuristic (time words, news, prices, recent years, "who is"/"what is the latest"...),
 * cheap and predictable; a deployment with a capable model can replace it with a model call.
 */
const SIGNALS = [
  /\b(latest|current|currently|today|tonight|yesterday|tomorrow|this (week|month|year)|right now|recent(ly)?|breaking|news|update[sd]?)\b/i,
  /\b(price|prices|cost of|stock|exchange rate|weather|forecast|score|results?|schedule|release date|version)\b/i,
  /\b(who (is|are|won)|what happened|when (is|does|did|will))\b/i,
  /\b20[2-9]\d\b/,
  /\b(search|look up|google|find (me )?(info|information|sources))\b/i,
];

export function needsWebSearch(text: string): boolean {
  return SIGNALS.some((re) => re.test(text));
}

/** The search query for a message: URLs dropped, whitespace collapsed, at most 400 characters. */
export function searchQueryOf(text: string): string {
  return text
    .replace(/https?:\/\/\S+/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 400);
}

/** Up to `max` distinct http(s) URLs in a text, in order (trailing punctuation dropped). */
export function detectUrls(text: string, max = 5): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/https?:\/\/[^\s<>"'`]+/gi)) {
    const url = match[0].replace(/[.,;:!?)\]}]+$/, '');
    if (!out.includes(url)) out.push(url);
    if (out.length === max) break;
  }
  return out;
}
