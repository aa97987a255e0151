import { DomainError, openAiErrorBodyOf, statusOf } from '@svc/errors';
import { BatchOutputLine, BatchStatus, OpenAIFile, StoredBatch, StoredFile, TERMINAL_STATUSES } from './batch.types';

const seconds = (ms: number | undefined): number | null => (ms === undefined ? null : Math.floor(ms / 1000));

export const isTerminal = (status: BatchStatus): boolean => TERMINAL_STATUSES.includes(status);

/** Statuses a cancel request moves to `cancelling` from; a terminal batch is answered as it is. */
export const CANCELLABLE: readonly BatchStatus[] = ['validating', 'in_progress'];

export function toOpenAIFile(file: StoredFile): OpenAIFile {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: seconds(file.createdAt)!,
    expires_at: seconds(file.expiresAt)!,
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
  };
}

/** The OpenAI `Batch` object. */
export function toOpenAIBatch(b: StoredBatch) {
  return {
    id: b.id,
    object: 'batch' as const,
    endpoint: b.endpoint,
    errors: b.error ? { object: 'list' as const, data: [{ code: b.error.code, message: b.error.message, param: null, line: null }] } : null,
    input_file_id: b.inputFileId,
    completion_window: b.completionWindow,
    status: b.status,
    output_file_id: b.outputFileId ?? null,
    error_file_id: b.errorFileId ?? null,
    created_at: seconds(b.createdAt)!,
    in_progress_at: seconds(b.inProgressAt),
    expires_at: seconds(b.expiresAt),
    finalizing_at: seconds(b.finalizingAt),
    completed_at: seconds(b.completedAt),
    failed_at: seconds(b.failedAt),
    expired_at: seconds(b.expiredAt),
    cancelling_at: seconds(b.cancellingAt),
    cancelled_at: seconds(b.cancelledAt),
    request_counts: { total: b.total, completed: b.completed, failed: b.failed },
    metadata: b.metadata,
  };
}

/** A line that ran and answered 200: it goes to the output file. */
export function succeededLine(id: string, customId: string, requestId: string, body: unknown): BatchOutputLine {
  return { id, custom_id: customId, response: { status_code: 200, request_id: requestId, body }, error: null };
}

/** A line the endpoint refused or failed (402, 400, 503, ...): the error file, with the body the live endpoint would send. */
export function refusedLine(id: string, customId: string, requestId: string, err: DomainError): BatchOutputLine {
  return { id, custom_id: customId, response: { status_code: statusOf(err.code), request_id: requestId, body: openAiErrorBodyOf(err) }, error: null };
}

/** A line that never ran because the batch was cancelled or expired first. */
export function notRunLine(id: string, customId: string, code: 'batch_cancelled' | 'batch_expired'): BatchOutputLine {
  const message = code === 'batch_cancelled' ? 'The batch was cancelled before this request ran.' : 'The batch expired before this request ran.';
  return { id, custom_id: customId, response: null, error: { code, message } };
}

/** Whether a line belongs in the output file (answered 2xx) rather than the error file. */
export const isSuccess = (line: BatchOutputLine): boolean => line.response !== null && line.response.status_code < 300;

/** The terminal status a batch whose run stopped ends in. */
export function endStatus(stop: 'done' | 'cancelled' | 'expired'): BatchStatus {
  if (stop === 'cancelled') return 'cancelled';
  if (stop === 'expired') return 'expired';
  return 'completed';
}

/**
 * OpenAI's list object from a page read one past `limit`: `has_more` when that extra one was
 * there; `first_id` and `last_id` null on an empty page.
 */
export function listPage<T extends { id: string }>(page: readonly T[], limit: number) {
  const data = page.slice(0, limit);
  return { object: 'list' as const, data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.length > limit };
}

/** Where a page after the cursor `after` starts in `ids`: past the end when `after` is not there. */
export function startAfter(ids: readonly string[], after: string | undefined): number {
  if (after === undefined) return 0;
  const at = ids.indexOf(after);
  return at < 0 ? ids.length : at + 1;
}
