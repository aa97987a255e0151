import { DomainError, ErrorCode } from '@svc/errors';
import { lineReservationId } from './batch-ids';
import { isSuccess, isTerminal, listPage, notRunLine, refusedLine, startAfter, succeededLine, toOpenAIBatch } from './batch-object';
import { StoredBatch } from './batch.types';

describe('batch objects', () => {
  it("derives a line's reservation id from the batch and custom_id only (a rerun replays its hold)", () => {
    const id = lineReservationId('batch_0123456789abcdef01234567', 'line-1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(lineReservationId('batch_0123456789abcdef01234567', 'line-1')).toBe(id);
    expect(lineReservationId('batch_0123456789abcdef01234567', 'line-2')).not.toBe(id);
    expect(lineReservationId('batch_0123456789abcdef01234568', 'line-1')).not.toBe(id);
  });

  it('writes output lines as OpenAI does: a 200 in the output file, refusals and lines never run in the error file', () => {
    const ok = succeededLine('r1', 'a', 'r1', { id: 'chatcmpl-1' });
    expect(ok).toEqual({ id: 'r1', custom_id: 'a', response: { status_code: 200, request_id: 'r1', body: { id: 'chatcmpl-1' } }, error: null });
    const refused = refusedLine('r2', 'b', 'r2', new DomainError(ErrorCode.InsufficientCredits, 'Insufficient balance'));
    expect(refused.response?.status_code).toBe(402);
    expect(refused.response?.body).toEqual({ error: expect.objectContaining({ message: 'Insufficient balance', code: 'insufficient_quota' }) });
    const skipped = notRunLine('r3', 'c', 'batch_cancelled');
    expect(skipped).toEqual({ id: 'r3', custom_id: 'c', response: null, error: { code: 'batch_cancelled', message: expect.any(String) } });
    expect([ok, refused, skipped].map(isSuccess)).toEqual([true, false, false]);
  });

  it('shows a stored batch as an OpenAI Batch, times in seconds', () => {
    const stored = {
      id: 'batch_x',
      endpoint: '/v1/chat/completions',
      inputFileId: 'file-x',
      completionWindow: '24h',
      metadata: { k: 'v' },
      createdAt: 1_700_000_000_500,
      expiresAt: 1_700_086_400_500,
      inProgressAt: 1_700_000_001_000,
      status: 'in_progress',
      total: 3,
      completed: 1,
      failed: 1,
    } as unknown as StoredBatch;
    expect(toOpenAIBatch(stored)).toMatchObject({
      id: 'batch_x',
      object: 'batch',
      status: 'in_progress',
      created_at: 1_700_000_000,
      in_progress_at: 1_700_000_001,
      completed_at: null,
      output_file_id: null,
      request_counts: { total: 3, completed: 1, failed: 1 },
      metadata: { k: 'v' },
      errors: null,
    });
    expect(['completed', 'failed', 'expired', 'cancelled'].every((s) => isTerminal(s as never))).toBe(true);
    expect(['validating', 'in_progress', 'finalizing', 'cancelling'].some((s) => isTerminal(s as never))).toBe(false);
  });

  it("pages a list as OpenAI does: has_more from the one read past the limit, the page's first and last ids", () => {
    const objects = ['a', 'b', 'c'].map((id) => ({ id }));
    expect(listPage(objects, 2)).toEqual({ object: 'list', data: objects.slice(0, 2), first_id: 'a', last_id: 'b', has_more: true });
    expect(listPage(objects, 3)).toEqual({ object: 'list', data: objects, first_id: 'a', last_id: 'c', has_more: false });
    expect(listPage([], 20)).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
  });

  it('starts a page just after its cursor, and past the end for a cursor not in the list', () => {
    const ids = ['x', 'y', 'z'];
    expect(startAfter(ids, undefined)).toBe(0);
    expect(startAfter(ids, 'x')).toBe(1);
    expect(startAfter(ids, 'z')).toBe(3);
    expect(startAfter(ids, 'gone')).toBe(3);
  });
});
