import { BlobStore } from '@svc/blob-store';

/** Bytes of JSON or base64 above which a payload goes through Redis instead of the NATS message (capped at 1 MB). */
export const INLINE_PAYLOAD_LIMIT = 512 * 1024;
/** How long parked vectors wait for the gateway to take them. */
export const PAYLOAD_TTL_MS = 60_000;

export const EMBEDDING_BLOBS = Symbol('EMBEDDING_BLOBS');

/** The blob store, connected on first use: a service that only gets small requests never needs Redis. */
export class LazyBlobStore {
  private store?: BlobStore;

  constructor(private readonly redisUrl: string) {}

  get(): BlobStore {
    this.store ??= BlobStore.connect(this.redisUrl);
    return this.store;
  }

  async close(): Promise<void> {
    await this.store?.close();
  }
}
