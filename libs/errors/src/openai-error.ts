import { DomainError } from './domain-error';
import { ErrorCode } from './error-code';
import { OpenAiErrorFields } from './openai-error-fields';

/** The body the gateway sends for a DomainError with `openai` fields. */
export interface OpenAiErrorBody {
  error: { message: string } & OpenAiErrorFields;
}

/** OpenAI's error code for a prompt longer than the model's context. */
export const CONTEXT_LENGTH_EXCEEDED = 'context_length_exceeded';

/** The request field a too-long prompt came in: chat's `messages`, `input` (embeddings, Responses), legacy completions' `prompt`. */
export type ContextParam = 'messages' | 'input' | 'prompt';

/**
 * A prompt over the model's context: a 400 answered in OpenAI's shape (docs/chat.md, "Context
 * length and token counts"). `param` is the request field that is too long (`messages` for chat,
 * `input` for embeddings). With both counts the message is OpenAI's own wording.
 */
export function contextLengthExceeded(promptTokens?: number, contextTokens?: number, param: ContextParam = 'messages'): DomainError {
  const message =
    promptTokens !== undefined && contextTokens !== undefined
      ? `This model's maximum context length is ${contextTokens} tokens. However, your ${param} resulted in ${promptTokens} tokens. Please reduce the length of the ${param}.`
      : `The ${param} exceed${param === 'messages' ? '' : 's'} this model's maximum context length. Please reduce the length of the ${param}.`;
  return new DomainError(
    ErrorCode.Validation,
    message,
    { _errors: [message], [param]: { _errors: [message] } },
    { openai: { type: 'invalid_request_error', code: CONTEXT_LENGTH_EXCEEDED, param } },
  );
}

export function isContextLengthExceeded(err: unknown): err is DomainError {
  return err instanceof DomainError && err.openai?.code === CONTEXT_LENGTH_EXCEEDED;
}

/**
 * The same context-length error naming another request field: the Responses API sends chat
 * messages as `input`, so its clients expect `param: "input"` (with the counts kept).
 */
export function contextLengthExceededAs(err: DomainError, param: ContextParam): DomainError {
  const counts = /maximum context length is (\d+) tokens\. However, your \w+ resulted in (\d+) tokens/.exec(err.message);
  return counts ? contextLengthExceeded(Number(counts[2]), Number(counts[1]), param) : contextLengthExceeded(undefined, undefined, param);
}
