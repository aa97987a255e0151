import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { Logger } from '@svc/logging';
import { AudioAbortedError } from './engines/engine';

/** What a caller sees of a failure: domain errors as they are, timeouts as 504, anything else as a logged 500. */
export function toDomainError(err: unknown, logger: Logger, requestId: string): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof AudioAbortedError || (err as { name?: string })?.name === 'TimeoutError')
    return new DomainError(ErrorCode.Timeout, 'The audio request took too long.');
  logger.error({ requestId, err: errorMessage(err) }, 'audio request failed');
  return new DomainError(ErrorCode.Internal, 'Audio processing failed.');
}
