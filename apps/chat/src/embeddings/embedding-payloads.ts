/** How long parked vectors and parsed text wait for the gateway to take them. */
export const PAYLOAD_TTL_MS = 60_000;

/** The chat service's blob store (a `LazyBlobStore` of `@svc/blob-store`, connected on first use). */
export const EMBEDDING_BLOBS = Symbol('EMBEDDING_BLOBS');
