import { createHash, randomBytes } from 'node:crypto';

export const newFileId = (): string => `file-${randomBytes(12).toString('hex')}`;
export const newBatchId = (): string => `batch_${randomBytes(12).toString('hex')}`;
export const isFileId = (id: string): boolean => /^file-[0-9a-f]{24}$/.test(id);
export const isBatchId = (id: string): boolean => /^batch_[0-9a-f]{24}$/.test(id);

/**
 * The reservation of one line: the same for every run of it, so a worker that restarts replays
 * the hold (and its settlement is already final) instead of charging the line twice.
 */
export function lineReservationId(batchId: string, customId: string): string {
  const h = createHash('sha256').update(batchId).update('\0').update(customId).digest();
  h[6] = (h[6] & 0x0f) | 0x50; // a name-based UUID (version 5 layout)
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A line's request id (its `response.request_id`), stable across runs. */
export const lineRequestId = (batchId: string, index: number): string => `${batchId.replace('batch_', 'batch_req_')}_${index}`;
