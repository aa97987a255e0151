import { ModelDefinition } from '@svc/catalog';
import { ChatMessage, WEB_CONTEXT_MAX_BYTES } from '@svc/contracts';

/** Tokens a chat template adds around a message (role markers), generously (as the gateway's estimate). */
const PER_MESSAGE_OVERHEAD = 8;
/** Below this many bytes of room, a context would be only its instructions: none is injected. */
export const MIN_CONTEXT_BYTES = 160;
const TRUNCATED = '\n[web context truncated]';

/**
 * Room left for the web context, in UTF-8 bytes: the model's `availableContextTokens` minus the
 * prompt and `maxTokens`. Without a tokenizer here, bytes bound tokens (every token of a
 * byte-level or byte-fallback tokenizer covers at least one byte), so the context always fits.
 * Never more than what the gateway's hold counted for it: WEB_CONTEXT_MAX_BYTES, or `held` (the
 * request's `webContextMaxBytes`, when it was admitted for the context its count found).
 */
export function contextBudgetBytes(model: ModelDefinition, messages: ChatMessage[], maxTokens: number, held = WEB_CONTEXT_MAX_BYTES): number {
  const cap = Math.min(WEB_CONTEXT_MAX_BYTES, held);
  if (!model.availableContextTokens) return cap;
  let prompt = PER_MESSAGE_OVERHEAD; // the context's own message or separator
  for (const m of messages) prompt += Buffer.byteLength(m.content, 'utf8') + PER_MESSAGE_OVERHEAD;
  return Math.min(cap, model.availableContextTokens - prompt - maxTokens);
}

/**
 * The context cut to `budget` bytes (on a character boundary, with a visible marker), or '' when
 * the room is too small to carry any source.
 */
export function fitContext(context: string, budget: number): string {
  if (!context || Buffer.byteLength(context, 'utf8') <= budget) return context;
  if (budget < MIN_CONTEXT_BYTES) return '';
  const room = budget - Buffer.byteLength(TRUNCATED, 'utf8');
  let bytes = 0;
  let end = 0;
  for (const ch of context) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > room) break;
    bytes += size;
    end += ch.length;
  }
  return context.slice(0, end) + TRUNCATED;
}

/**
 * The messages with the context as a section of the leading system message (after the service
 * prompt, persona and the caller's system prompt), or as a new leading system message.
 */
export function withContext(messages: ChatMessage[], context: string): ChatMessage[] {
  if (!context) return messages;
  const first = messages[0];
  if (first && (first.role === 'system' || first.role === 'developer') && !first.parts) {
    return [{ ...first, role: 'system', content: first.content.trim() ? `${first.content}\n\n${context}` : context }, ...messages.slice(1)];
  }
  return [{ role: 'system', content: context }, ...messages];
}
