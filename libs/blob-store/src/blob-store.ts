import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';

/** Largest blob accepted (request bodies are capped well below this at the gateway). */
export const MAX_BLOB_BYTES = 64 * 1024 * 1024;

export interface BlobRef {
  /** Opaque id; pass it in a message instead of the bytes. */
  blobId: string;
  bytes: number;
}

/**
 * Short-lived binary payloads shared between the gateway and services through Redis: request
 * inputs and generated outputs too large for a NATS message (images, audio). Every blob has a
 * TTL and is removed when taken, so user content is never kept longer than the request or job
 * that needs it (docs/architecture.md, privacy). Redis must not persist to disk for this data.
 */
export class BlobStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'svc:blob:',
  ) {}

  static connect(url: string, prefix?: string): BlobStore {
    return new BlobStore(new Redis(url, { maxRetriesPerRequest: 2, connectTimeout: 2_000 }), prefix);
  }

  async put(data: Buffer, ttlMs: number): Promise<BlobRef> {
    if (data.length > MAX_BLOB_BYTES) throw new RangeError(`blob of ${data.length} bytes exceeds ${MAX_BLOB_BYTES}`);
    const blobId = randomUUID();
    await this.redis.set(this.key(blobId), data, 'PX', Math.max(1, Math.round(ttlMs)));
    return { blobId, bytes: data.length };
  }

  /** The bytes, or null when expired, taken or never stored. */
  get(blobId: string): Promise<Buffer | null> {
    return this.redis.getBuffer(this.key(blobId));
  }

  /** Reads and deletes in one step: the blob is gone once it has been delivered. */
  take(blobId: string): Promise<Buffer | null> {
    return this.redis.getdelBuffer(this.key(blobId));
  }

  /** Sets the blob's TTL to `ttlMs` from now; false when it is already gone. */
  async keep(blobId: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.pexpire(this.key(blobId), Math.max(1, Math.round(ttlMs)))) === 1;
  }

  async delete(blobId: string): Promise<boolean> {
    return (await this.redis.del(this.key(blobId))) > 0;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private key(blobId: string): string {
    if (!/^[0-9a-f-]{36}$/.test(blobId)) throw new RangeError('invalid blob id');
    return this.prefix + blobId;
  }
}
