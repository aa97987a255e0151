import { INLINE_PAYLOAD_MAX_BYTES, InlineOrBlob } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { BlobRef, BlobStore } from './blob-store';

/** What packing and unpacking need of a store (a `BlobStore`, or a wrapper that connects on first use). */
export type Blobs = Pick<BlobStore, 'put' | 'get' | 'take' | 'delete'>;

export interface PackOptions {
  /** How long a blob waits for its receiver. */
  ttlMs: number;
  /** Names the bytes in the 503 when the store is unreachable ("the upload"). */
  what?: string;
  /**
   * The inline share of one payload, at most `INLINE_PAYLOAD_MAX_BYTES` (the default): a message
   * that carries several payloads gives each a part of it.
   */
  inlineMaxBytes?: number;
}

/** Parks bytes in the store; an unreachable store is a 503 the caller may retry. */
export async function parkBlob(store: Pick<Blobs, 'put'>, bytes: Buffer, ttlMs: number, what = 'the payload'): Promise<BlobRef> {
  try {
    return await store.put(bytes, ttlMs);
  } catch {
    throw new DomainError(ErrorCode.ServiceUnavailable, `Temporary storage for ${what} is unavailable; retry shortly.`);
  }
}

/** Bytes as a message field: inline (base64) up to the limit, else parked in the store (docs/architecture.md, "Payloads"). */
export async function packInlineOrBlob(store: Pick<Blobs, 'put'>, bytes: Buffer, options: PackOptions): Promise<InlineOrBlob> {
  const inlineMax = Math.min(options.inlineMaxBytes ?? INLINE_PAYLOAD_MAX_BYTES, INLINE_PAYLOAD_MAX_BYTES);
  if (bytes.length <= inlineMax) return { base64: bytes.toString('base64') };
  return parkBlob(store, bytes, options.ttlMs, options.what);
}

export interface UnpackOptions {
  /** The error when the blob is gone (expired, or taken already): what it means depends on who waited for it. */
  missing: () => Error;
  /** Read the blob and leave it for a later step (the default takes it: reads and deletes). */
  keep?: boolean;
}

/** The bytes of a payload; a blob is taken (read and deleted) unless `keep`. */
export async function unpackInlineOrBlob(store: Pick<Blobs, 'get' | 'take'>, payload: InlineOrBlob, options: UnpackOptions): Promise<Buffer> {
  if ('base64' in payload) return Buffer.from(payload.base64, 'base64');
  const bytes = options.keep ? await store.get(payload.blobId) : await store.take(payload.blobId);
  if (!bytes) throw options.missing();
  return bytes;
}

/** Deletes a payload's blob, if it has one and it is still there; never throws (the TTL removes it anyway). */
export async function discardInlineOrBlob(store: Pick<Blobs, 'delete'>, payload: InlineOrBlob): Promise<void> {
  if ('blobId' in payload) await store.delete(payload.blobId).catch(() => undefined);
}
