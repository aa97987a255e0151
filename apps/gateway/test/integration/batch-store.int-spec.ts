import Redis from 'ioredis';
import { AuthenticatedKey } from '@svc/contracts';
import { GatewayConfig } from '../../src/config';
import { BatchStore } from '../../src/batches/batch-store';
import { BatchOutputLine, StoredBatch } from '../../src/batches/batch.types';
import { PrivateRedis, startPrivateRedis } from '@svc/testing';

/** The batch store against a real redis-server of this test's own. */
const config = { REDIS_KEY_PREFIX: 't:' } as GatewayConfig;
let server: PrivateRedis;
let redis: Redis;
let store: BatchStore;
let n = 0;

const newBatch = async (): Promise<StoredBatch> => {
  const batch: StoredBatch = {
    id: `batch_${++n}`,
    key: { accountId: 'acct' } as AuthenticatedKey,
    ip: '127.0.0.1',
    endpoint: '/v1/chat/completions',
    inputFileId: 'file_in',
    completionWindow: '24h',
    metadata: null,
    createdAt: Date.now(),
    expiresAt: Date.now() + 60_000,
    status: 'in_progress',
    total: 4,
    completed: 0,
    failed: 0,
  };
  await store.createBatch(batch);
  return batch;
};
const line = (i: number): BatchOutputLine => ({ id: `r${i}`, custom_id: `c${i}`, response: { status_code: 200, request_id: `r${i}`, body: {} }, error: null });

/** A connection whose process dies after its first command reaches Redis: every later command fails. */
const dyingAfterOneCommand = (healthy: Redis): Redis => {
  let sent = 0;
  return new Proxy(healthy, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (sent++ > 0) return Promise.reject(new Error('the process died'));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
};

beforeAll(async () => {
  server = await startPrivateRedis();
  redis = new Redis(server.url);
  store = new BatchStore(redis, config);
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('batch store: finished lines', () => {
  it('counts a line once, however often it is recorded (a job taken over after a crash records it again)', async () => {
    const batch = await newBatch();
    await store.recordLine(batch.id, 0, line(0), true, 60_000);
    await store.recordLine(batch.id, 0, line(0), true, 60_000);
    await store.recordLine(batch.id, 1, line(1), false, 60_000);
    expect(await store.batch(batch.id)).toMatchObject({ completed: 1, failed: 1 });
    expect([...(await store.results(batch.id)).keys()].sort()).toEqual([0, 1]);
  });

  it('a worker killed while recording a line leaves it either unrecorded (run again) or recorded and counted, never recorded and uncounted', async () => {
    const batch = await newBatch();
    const connection = new Redis(server.url);
    const dying = new BatchStore(dyingAfterOneCommand(connection), config);
    await dying.recordLine(batch.id, 2, line(2), true, 60_000).catch(() => undefined);
    connection.disconnect();
    const recorded = (await store.results(batch.id)).has(2);
    // The resumed job skips a recorded line, so its count must already be in the batch.
    expect((await store.batch(batch.id))!.completed).toBe(recorded ? 1 : 0);
    expect(recorded).toBe(true);
  });

  it("records a batch's files with its end only for the worker that ends it: a second finalizer changes nothing", async () => {
    const batch = await newBatch();
    expect(await store.moveStatus(batch.id, ['in_progress'], 'completed', { outputFileId: 'file_a', errorFileId: 'file_b' })).toBe(true);
    expect(await store.moveStatus(batch.id, ['in_progress', 'finalizing'], 'completed', { outputFileId: 'file_c' })).toBe(false);
    const ended = await store.batch(batch.id);
    expect(ended).toMatchObject({ status: 'completed', outputFileId: 'file_a', errorFileId: 'file_b' });
    expect(ended!.completedAt).toBeGreaterThan(0);
    expect(await store.moveStatus(batch.id, ['completed'], 'failed', { error: JSON.stringify({ code: 'c', message: 'm' }) })).toBe(true);
    expect((await store.batch(batch.id))!.error).toEqual({ code: 'c', message: 'm' });
  });
});
