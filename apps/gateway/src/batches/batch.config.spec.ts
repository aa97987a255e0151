import { loadBatchConfig } from './batch.config';

describe('batch config', () => {
  it('defaults to a 16 MiB, 10,000-line upload kept 24 h, and a worker in this process running 2 batches of 4 lines at once', () => {
    expect(loadBatchConfig({})).toEqual({
      BATCH_FILE_MAX_BYTES: 16 * 1024 * 1024,
      BATCH_MAX_LINES: 10_000,
      BATCH_FILE_TTL_MS: 86_400_000,
      BATCH_WORKER: true,
      BATCH_CONCURRENCY: 2,
      BATCH_LINE_CONCURRENCY: 4,
      BATCH_JOB_LOCK_MS: 60_000,
    });
  });

  it('refuses an upload limit above what multipart accepts, and a worker switch that is not a boolean', () => {
    expect(() => loadBatchConfig({ BATCH_FILE_MAX_BYTES: String(64 * 1024 * 1024) })).toThrow(/BATCH_FILE_MAX_BYTES/);
    expect(() => loadBatchConfig({ BATCH_WORKER: 'yes' })).toThrow(/BATCH_WORKER/);
    expect(loadBatchConfig({ BATCH_WORKER: 'false' }).BATCH_WORKER).toBe(false);
  });

  it('runs 1 to 64 lines of a batch at once, and refuses anything else at boot', () => {
    expect(loadBatchConfig({ BATCH_LINE_CONCURRENCY: '1' }).BATCH_LINE_CONCURRENCY).toBe(1);
    expect(loadBatchConfig({ BATCH_LINE_CONCURRENCY: '64' }).BATCH_LINE_CONCURRENCY).toBe(64);
    for (const bad of ['0', '65', '2.5', 'many']) expect(() => loadBatchConfig({ BATCH_LINE_CONCURRENCY: bad })).toThrow(/BATCH_LINE_CONCURRENCY/);
  });
});
