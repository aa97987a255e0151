import { startPrivateRedis, PrivateRedis } from '@svc/testing';
import { BlobStore } from '../../src';

describe('BlobStore (real Redis)', () => {
  let redis: PrivateRedis;
  let store: BlobStore;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    store = BlobStore.connect(redis.url, 'test:blob:');
  });
  afterAll(async () => {
    await store.close();
    await redis.stop();
  });

  it('stores bytes and gives them back exactly', async () => {
    const data = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    const ref = await store.put(data, 10_000);
    expect(ref.bytes).toBe(7);
    expect((await store.get(ref.blobId))?.equals(data)).toBe(true);
  });

  it('take removes the blob: a second take finds nothing', async () => {
    const ref = await store.put(Buffer.from('secret image bytes'), 10_000);
    expect((await store.take(ref.blobId))?.toString()).toBe('secret image bytes');
    expect(await store.take(ref.blobId)).toBeNull();
  });

  it('expires blobs after their TTL', async () => {
    const ref = await store.put(Buffer.from('short-lived'), 50);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await store.get(ref.blobId)).toBeNull();
  });

  it('delete reports whether something was removed; ids are validated', async () => {
    const ref = await store.put(Buffer.from('x'), 10_000);
    expect(await store.delete(ref.blobId)).toBe(true);
    expect(await store.delete(ref.blobId)).toBe(false);
    expect(() => store.get('../../etc')).toThrow('invalid blob id');
  });
});
