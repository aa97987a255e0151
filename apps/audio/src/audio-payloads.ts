import { Inject, Injectable } from '@nestjs/common';
import { BlobStore, discardInlineOrBlob, packInlineOrBlob, unpackInlineOrBlob } from '@svc/blob-store';
import { InlineOrBlob } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { AUDIO_CONFIG, AudioConfig } from './config';
import { BLOB_STORE } from './tokens';

/** Audio in and out of NATS messages (`@svc/blob-store`'s pack and unpack), with this service's TTL and errors. */
@Injectable()
export class AudioPayloads {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(AUDIO_CONFIG) private readonly config: AudioConfig,
  ) {}

  pack(audio: Buffer): Promise<InlineOrBlob> {
    return packInlineOrBlob(this.blobs, audio, { ttlMs: this.config.AUDIO_BLOB_TTL_MS, what: 'the audio' });
  }

  /** The bytes; a blob is read (`keep`) or taken (read and deleted). */
  unpack(payload: InlineOrBlob, keep = false): Promise<Buffer> {
    const missing = () => new DomainError(ErrorCode.Validation, 'The uploaded audio expired before it was processed; send it again.');
    return unpackInlineOrBlob(this.blobs, payload, { missing, keep });
  }

  discard(payload: InlineOrBlob): Promise<void> {
    return discardInlineOrBlob(this.blobs, payload);
  }
}
