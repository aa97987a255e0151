/**
 * A prompt over the model's context: the error and its OpenAI signal live in `@svc/errors`
 * (`openai-error.ts`), shared with the upstream mapper (`@svc/upstream`); the gateway's error
 * filter answers it in OpenAI's shape (docs/chat.md).
 */
export { CONTEXT_LENGTH_EXCEEDED, contextLengthExceeded, isContextLengthExceeded } from '@svc/errors';
