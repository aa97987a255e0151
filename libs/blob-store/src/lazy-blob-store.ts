import { BlobRef, BlobStore } from './blob-store';
import { Blobs } from './inline-or-blob';

/** A blob store that connects on first use: a service that only sees payloads small enough to go inline never needs Redis. */
export class LazyBlobStore implements Blobs {
  private store?: BlobStore;

  constructor(private readonly redisUrl: string) {}

  put(data: Buffer, ttlMs: number): Promise<BlobRef> {
    return this.connected().put(data, ttlMs);
  }

  get(blobId: string): Promise<Buffer | null> {
    return this.connected().get(blobId);
  }

  take(blobId: string): Promise<Buffer | null> {
    return this.connected().take(blobId);
  }

  delete(blobId: string): Promise<boolean> {
    return this.connected().delete(blobId);
  }

  async close(): Promise<void> {
    await this.store?.close();
  }

  private connected(): BlobStore {
    this.store ??= BlobStore.connect(this.redisUrl);
    return this.store;
  }
}
