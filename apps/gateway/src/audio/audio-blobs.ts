import Redis from 'ioredis';
import { BlobStore } from '@svc/blob-store';
import { AudioPayload, MAX_INLINE_AUDIO_BYTES } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { REDIS } from '../redis/redis.module';

export const AUDIO_BLOBS = Symbol('AUDIO_BLOBS');

/** The blob store on the gateway's Redis connection (same key prefix as the audio service). */
export const audioBlobsProvider = { provide: AUDIO_BLOBS, inject: [REDIS], useFactory: (redis: Redis) => new BlobStore(redis) };

/** Upload bytes as a NATS payload: inline when small, else a blob that lives until the request's deadline. */
export async function packUpload(blobs: BlobStore, bytes: Buffer, ttlMs: number): Promise<AudioPayload> {
  if (bytes.length <= MAX_INLINE_AUDIO_BYTES) return { base64: bytes.toString('base64') };
  try {
    return await blobs.put(bytes, ttlMs);
  } catch {
    throw new DomainError(ErrorCode.ServiceUnavailable, 'Temporary storage for the upload is unavailable; retry shortly.');
  }
}

/** The bytes of a service's audio reply. */
export async function unpackAudio(blobs: BlobStore, payload: AudioPayload): Promise<Buffer> {
  if ('base64' in payload) return Buffer.from(payload.base64, 'base64');
  const bytes = await blobs.take(payload.blobId);
  if (!bytes) throw new DomainError(ErrorCode.Internal, 'The generated audio could not be delivered.');
  return bytes;
}
