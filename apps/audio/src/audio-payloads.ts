import { Inject, Injectable } from '@nestjs/common';
import { BlobStore } from '@svc/blob-store';
import { AudioPayload, MAX_INLINE_AUDIO_BYTES } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { AUDIO_CONFIG, AudioConfig } from './config';
import { BLOB_STORE } from './tokens';

/** Audio in and out of NATS messages: inline when small, through the blob store otherwise. */
@Injectable()
export class AudioPayloads {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(AUDIO_CONFIG) private readonly config: AudioConfig,
  ) {}

  async pack(audio: Buffer): Promise<AudioPayload> {
    if (audio.length <= MAX_INLINE_AUDIO_BYTES) return { base64: audio.toString('base64') };
    return this.blobs.put(audio, this.config.AUDIO_BLOB_TTL_MS);
  }

  /** The bytes; a blob is read (`keep`) or taken (read and deleted). */
  async unpack(payload: AudioPayload, keep = false): Promise<Buffer> {
    if ('base64' in payload) return Buffer.from(payload.base64, 'base64');
    const bytes = keep ? await this.blobs.get(payload.blobId) : await this.blobs.take(payload.blobId);
    if (!bytes) throw new DomainError(ErrorCode.Validation, 'The uploaded audio expired before it was processed; send it again.');
    return bytes;
  }

  async discard(payload: AudioPayload): Promise<void> {
    if ('blobId' in payload) await this.blobs.delete(payload.blobId).catch(() => undefined);
  }
}
