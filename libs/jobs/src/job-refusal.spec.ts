import { UnrecoverableError } from 'bullmq';
import { DomainError, ErrorCode } from '@svc/errors';
import { failedJobMessage, finalIfRefused, isFinalAttempt } from '.';

describe('job refusals', () => {
  const job = { attemptsMade: 1, opts: { attempts: 3 } };

  it('a 4xx DomainError ends the job at once, and its message is what retrieval shows', () => {
    const refused = finalIfRefused(new DomainError(ErrorCode.Validation, 'The prompt was refused by the content policy.')) as Error;
    expect(refused).toBeInstanceOf(UnrecoverableError);
    expect(isFinalAttempt(job, refused)).toBe(true);
    expect(failedJobMessage(refused.message, 'failed after retries')).toBe('The prompt was refused by the content policy.');
  });

  it('a crash or a 5xx is retried, and retrieval shows only the generic reason', () => {
    for (const err of [new Error('ffmpeg exited with 1 at /tmp/x'), new DomainError(ErrorCode.Upstream, 'upstream failed')]) {
      expect(finalIfRefused(err)).toBe(err);
      expect(isFinalAttempt(job, err)).toBe(false);
      expect(failedJobMessage(err.message, 'failed after retries')).toBe('failed after retries');
    }
    expect(isFinalAttempt({ attemptsMade: 3, opts: { attempts: 3 } }, new Error('x'))).toBe(true);
  });
});
