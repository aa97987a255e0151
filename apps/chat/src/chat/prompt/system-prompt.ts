import { ChatMessage, SYSTEM_SECTION_SEPARATOR } from '@svc/contracts';

export interface SystemPromptOptions {
  /** The deployment's own system prompt (SVC_SYSTEM_PROMPT); empty means none. */
  svcPrompt: string;
  /** `svc_parameters.include_svc_system_prompt`. */
  includeSvcPrompt: boolean;
  /** The persona of `svc_parameters.character_slug`, if any. */
  characterPrompt?: string;
  /** Appended last (e.g. `/no_think`) when thinking is disabled on a reasoning model. */
  instruction?: string;
}

const isSystem = (m: ChatMessage) => m.role === 'system' || m.role === 'developer';

/**
 * The messages a model sees: one leading system message made of the service's prompt, then the
 * character's persona, then the caller's own leading system (or developer) messages, then the
 * instruction, separated by blank lines. Merging into one message keeps chat templates that
 * accept a single system turn working. Later system messages and every other turn are kept.
 */
export function withSystemPrompt(messages: ChatMessage[], options: SystemPromptOptions): ChatMessage[] {
  let leading = 0;
  while (leading < messages.length && isSystem(messages[leading]) && !messages[leading].parts) leading++;
  const sections = [
    options.includeSvcPrompt ? options.svcPrompt : '',
    options.characterPrompt ?? '',
    ...messages.slice(0, leading).map((m) => m.content),
    options.instruction ?? '',
  ].filter((text) => text.trim() !== '');
  const rest = messages.slice(leading);
  if (sections.length === 0) return rest;
  if (leading === 1 && sections.length === 1) return messages;
  return [{ role: 'system', content: sections.join(SYSTEM_SECTION_SEPARATOR) }, ...rest];
}
