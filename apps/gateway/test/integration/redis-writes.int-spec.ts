import Redis from 'ioredis';
import { PrivateRedis, startPrivateRedis } from '@svc/testing';
import { coalesceRedisWrites } from '../../src/rate-limit/redis-writes';

/** Commands of one event-loop turn leave in one socket write; nothing may be lost or reordered by that. */
describe('coalesceRedisWrites', () => {
  let server: PrivateRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startPrivateRedis();
    redis = new Redis(server.url);
    coalesceRedisWrites(redis);
    await new Promise((resolve) => redis.once('ready', resolve));
  });
  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  /** Socket writes (chunks per write) while `work` runs. */
  const writesDuring = async <T>(work: () => Promise<T>): Promise<{ result: T; writes: number[] }> => {
    const writes: number[] = [];
    const socket = redis.stream as unknown as {
      _writev: (chunks: unknown[], cb: () => void) => void;
      _write: (chunk: unknown, enc: string, cb: () => void) => void;
    };
    const [writev, write] = [socket._writev, socket._write];
    socket._writev = (chunks, cb) => (writes.push(chunks.length), writev.call(socket, chunks, cb));
    socket._write = (chunk, enc, cb) => (writes.push(1), write.call(socket, chunk, enc, cb));
    try {
      return { result: await work(), writes };
    } finally {
      [socket._writev, socket._write] = [writev, write];
    }
  };
  const fifty = (key: string) => Promise.all(Array.from({ length: 50 }, () => redis.incr(key)));

  it('answers every command of a turn, in order, with one write', async () => {
    const { result, writes } = await writesDuring(() => fifty('coalesce:n'));
    expect(result).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(writes).toEqual([50]);
  });

  it('keeps coalescing on a new connection after a reconnect, and writes what is corked before quitting', async () => {
    redis.disconnect(true);
    await new Promise((resolve) => redis.once('ready', resolve));
    expect((await writesDuring(() => fifty('coalesce:m'))).writes).toEqual([50]);
    const other = new Redis(server.url);
    coalesceRedisWrites(other);
    await new Promise((resolve) => other.once('ready', resolve));
    void other.set('coalesce:last', 'written');
    await other.quit();
    expect(await redis.get('coalesce:last')).toBe('written');
  });
});
