import Redis from 'ioredis';
import { BlobStore, packInlineOrBlob, unpackInlineOrBlob } from '@svc/blob-store';
import { InlineOrBlob } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { REDIS } from '../redis/redis.module';

export const AUDIO_BLOBS = Symbol('AUDIO_BLOBS');

/** The blob store on the gateway's Redis connection (same key prefix as the audio service). */
export const audioBlobsProvider = { provide: AUDIO_BLOBS, inject: [REDIS], useFactory: (redis: Redis) => new BlobStore(redis) };

/** Upload bytes as a NATS payload: a blob lives until the request's deadline. */
export function packUpload(blobs: BlobStore, bytes: Buffer, ttlMs: number): Promise<InlineOrBlob> {
  return packInlineOrBlob(blobs, bytes, { ttlMs, what: 'the upload' });
}

/** The bytes of a service's audio reply. */
export function unpackAudio(blobs: BlobStore, payload: InlineOrBlob): Promise<Buffer> {
  return unpackInlineOrBlob(blobs, payload, { missing: () => new DomainError(ErrorCode.Internal, 'The generated audio could not be delivered.') });
}
