import { INLINE_PAYLOAD_MAX_BYTES, INLINE_PAYLOAD_MAX_CHARS, inlineOrBlobSchema, NATS_MAX_PAYLOAD_BYTES } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { BlobRef } from './blob-store';
import { Blobs, discardInlineOrBlob, packInlineOrBlob, parkBlob, unpackInlineOrBlob } from './inline-or-blob';

/** The store's contract in memory: put, get, take (read and delete), delete. */
class MemoryBlobs implements Blobs {
  readonly data = new Map<string, Buffer>();
  private next = 0;

  async put(data: Buffer): Promise<BlobRef> {
    const blobId = `00000000-0000-0000-0000-${String(++this.next).padStart(12, '0')}`;
    this.data.set(blobId, data);
    return { blobId, bytes: data.length };
  }
  async get(blobId: string): Promise<Buffer | null> {
    return this.data.get(blobId) ?? null;
  }
  async take(blobId: string): Promise<Buffer | null> {
    const bytes = this.data.get(blobId) ?? null;
    this.data.delete(blobId);
    return bytes;
  }
  async delete(blobId: string): Promise<boolean> {
    return this.data.delete(blobId);
  }
}

const missing = () => new DomainError(ErrorCode.ServiceUnavailable, 'gone');
const bytesOf = (n: number) => Buffer.alloc(n, 7);

describe('packInlineOrBlob / unpackInlineOrBlob', () => {
  it('derives one limit from NATS max_payload: the largest payload inline is half a message as base64', () => {
    expect(INLINE_PAYLOAD_MAX_CHARS).toBe(NATS_MAX_PAYLOAD_BYTES / 2);
    expect(bytesOf(INLINE_PAYLOAD_MAX_BYTES).toString('base64').length).toBeLessThanOrEqual(INLINE_PAYLOAD_MAX_CHARS);
    expect(bytesOf(INLINE_PAYLOAD_MAX_BYTES + 1).toString('base64').length).toBeGreaterThan(INLINE_PAYLOAD_MAX_CHARS);
  });

  it('sends bytes up to the limit inline, stores nothing, and unpacks them exactly', async () => {
    const store = new MemoryBlobs();
    const bytes = Buffer.from(Array.from({ length: INLINE_PAYLOAD_MAX_BYTES }, (_, i) => i % 256));
    const payload = await packInlineOrBlob(store, bytes, { ttlMs: 1_000 });
    expect('base64' in payload).toBe(true);
    expect(inlineOrBlobSchema.safeParse(payload).success).toBe(true);
    expect(store.data.size).toBe(0);
    expect((await unpackInlineOrBlob(store, payload, { missing })).equals(bytes)).toBe(true);
  });

  it('parks bytes above the limit in the store; unpacking takes them, so a second unpack is the caller-given error', async () => {
    const store = new MemoryBlobs();
    const bytes = bytesOf(INLINE_PAYLOAD_MAX_BYTES + 1);
    const payload = await packInlineOrBlob(store, bytes, { ttlMs: 1_000 });
    expect(payload).toEqual({ blobId: expect.any(String), bytes: bytes.length });
    expect(inlineOrBlobSchema.safeParse(payload).success).toBe(true);
    expect((await unpackInlineOrBlob(store, payload, { missing })).equals(bytes)).toBe(true);
    expect(store.data.size).toBe(0);
    const err = await unpackInlineOrBlob(store, payload, { missing }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: ErrorCode.ServiceUnavailable, message: 'gone' });
  });

  it('keeps a blob it is told to keep, and discards it on request', async () => {
    const store = new MemoryBlobs();
    const payload = await packInlineOrBlob(store, bytesOf(10), { ttlMs: 1_000, inlineMaxBytes: 4 });
    expect('blobId' in payload).toBe(true);
    expect((await unpackInlineOrBlob(store, payload, { missing, keep: true })).length).toBe(10);
    expect(store.data.size).toBe(1);
    await discardInlineOrBlob(store, payload);
    expect(store.data.size).toBe(0);
    await expect(discardInlineOrBlob(store, { base64: 'AA==' })).resolves.toBeUndefined();
  });

  it('never inlines past the limit, whatever share a caller asks for', async () => {
    const store = new MemoryBlobs();
    const payload = await packInlineOrBlob(store, bytesOf(INLINE_PAYLOAD_MAX_BYTES + 1), { ttlMs: 1_000, inlineMaxBytes: 10 * INLINE_PAYLOAD_MAX_BYTES });
    expect('blobId' in payload).toBe(true);
  });

  it('turns an unreachable store into a 503 naming what could not be stored', async () => {
    const down = { put: () => Promise.reject(new Error('ECONNREFUSED')) };
    const err = await packInlineOrBlob(down, bytesOf(INLINE_PAYLOAD_MAX_BYTES + 1), { ttlMs: 1_000, what: 'the upload' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.ServiceUnavailable, status: 503, message: 'Temporary storage for the upload is unavailable; retry shortly.' });
    await expect(parkBlob(down, bytesOf(1), 1_000)).rejects.toThrow('Temporary storage for the payload is unavailable; retry shortly.');
  });
});
