import Redis from 'ioredis';
import { BlobStore, unpackInlineOrBlob } from '@svc/blob-store';
import { ImageBlob } from '@svc/contracts';
import { outboundFetcherFromEnv } from '@svc/outbound';
import { DomainError, ErrorCode } from '@svc/errors';
import { REDIS } from '../redis/redis.module';

export const IMAGE_BLOBS = Symbol('IMAGE_BLOBS');
/** Uploaded inputs wait this long for the media service. */
export const INPUT_BLOB_TTL_MS = 120_000;

/** The blob store on the gateway's Redis connection (same key prefix as the media service). */
export const imageBlobsProvider = { provide: IMAGE_BLOBS, inject: [REDIS], useFactory: (redis: Redis) => new BlobStore(redis) };

/** Takes (reads and deletes) an output the media service stored. */
export function takeOutput(blobs: BlobStore, image: ImageBlob): Promise<Buffer> {
  return unpackInlineOrBlob(blobs, image, { missing: () => new DomainError(ErrorCode.Internal, 'The generated image was lost before delivery.') });
}

export const IMAGE_URL_FETCHER = Symbol('IMAGE_URL_FETCHER');
/** The SSRF-guarded fetcher for `image` URLs, configured from OUTBOUND_* (libs/outbound). */
export const imageUrlFetcherProvider = { provide: IMAGE_URL_FETCHER, useFactory: () => outboundFetcherFromEnv() };
