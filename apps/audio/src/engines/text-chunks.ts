/** Longest piece of text synthesized in one engine call (Flite slows down on very long utterances). */
export const MAX_CHUNK_CHARS = 400;

/**
 * Splits text into sentence-sized pieces, in order, each at most `max` characters: at sentence
 * ends first, then at commas or semicolons, then at spaces, and hard-cut as a last resort.
 * Streaming sends audio piece by piece, and long inputs never reach the engine in one call.
 */
export function splitForSpeech(text: string, max = MAX_CHUNK_CHARS): string[] {
  const sentences = text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?;:])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const out: string[] = [];
  for (const sentence of sentences) out.push(...cut(sentence, max));
  return out;
}

function cut(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const window = text.slice(0, max);
  let at = Math.max(window.lastIndexOf(', '), window.lastIndexOf('; '));
  if (at < max / 3) at = window.lastIndexOf(' ');
  if (at < max / 3) at = max - 1;
  return [text.slice(0, at + 1).trim(), ...cut(text.slice(at + 1).trim(), max)].filter((s) => s.length > 0);
}
