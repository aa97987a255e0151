import { PromptBudgetReply } from './subjects';

/** Between the sections the chat service merges into the leading system message. */
export const SYSTEM_SECTION_SEPARATOR = '\n\n';

/**
 * What the chat service adds to any prompt besides a persona and web context (the answer of
 * chat.query.prompt-budget.v1): its system prompt, the no-think instruction, and the separators
 * between the (up to 5) merged system sections, with room for the context's truncation marker.
 */
export function promptBudgetOf(systemPrompt: string, noThinkInstruction: string): PromptBudgetReply {
  return {
    systemPromptBytes: Buffer.byteLength(systemPrompt, 'utf8'),
    noThinkInstructionBytes: Buffer.byteLength(noThinkInstruction, 'utf8'),
    separatorBytes: 5 * Buffer.byteLength(SYSTEM_SECTION_SEPARATOR, 'utf8') + 64,
  };
}
