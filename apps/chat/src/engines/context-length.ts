import { DomainError, ErrorCode } from '@svc/errors';

/** OpenAI's error code for a prompt longer than the model's context. */
export const CONTEXT_LENGTH_EXCEEDED = 'context_length_exceeded';

/**
 * A 400 the gateway renders in OpenAI's shape (`{error: {message, type, param, code}}`), see
 * docs/chat.md. `details.code` carries the marker across NATS.
 */
export function contextLengthExceeded(promptTokens: number | undefined, contextTokens: number | undefined): DomainError {
  const message =
    promptTokens !== undefined && contextTokens !== undefined
      ? `This model's maximum context length is ${contextTokens} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`
      : "The messages exceed this model's maximum context length. Please reduce the length of the messages.";
  return new DomainError(ErrorCode.Validation, message, {
    _errors: [message],
    messages: { _errors: [message] },
    code: [CONTEXT_LENGTH_EXCEEDED],
    type: ['invalid_request_error'],
    param: ['messages'],
  });
}

export function isContextLengthExceeded(err: unknown): err is DomainError {
  return err instanceof DomainError && Array.isArray(err.details?.code) && (err.details.code as string[])[0] === CONTEXT_LENGTH_EXCEEDED;
}
