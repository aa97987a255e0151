import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { BlobStore, unpackInlineOrBlob } from '@svc/blob-store';
import { ProbeAudioClipReply, ProbeAudioClipRequest, ProbeVideoReply, ProbeVideoRequest, VideoBlob } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { NotAVideoError, probeAudioClip, probeVideo } from '../ffmpeg/probe-video';
import { BLOB_STORE } from '../../images/tokens';

/** Measures an input video (duration, frame rate, size) for the gateway's pricing and validation. */
@Injectable()
export class VideoProbeService {
  constructor(@Inject(BLOB_STORE) private readonly blobs: BlobStore) {}

  async probe({ video }: ProbeVideoRequest): Promise<ProbeVideoReply> {
    const { seconds, fps, width, height, codec } = await this.measure(video, 'video_url', probeVideo);
    return { seconds, fps, width, height, codec };
  }

  /** A reference audio clip's length and container. */
  probeAudio({ audio, field }: ProbeAudioClipRequest): Promise<ProbeAudioClipReply> {
    return this.measure(audio, field, probeAudioClip);
  }

  private async measure<T>(blob: VideoBlob, field: string, probe: (file: string) => Promise<T>): Promise<T> {
    const at = field.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    const missing = () => DomainError.validation([{ path: at, message: 'the uploaded file expired before it was read; send it again' }]);
    // Kept, not taken: the job that follows the probe reads it again.
    const bytes = await unpackInlineOrBlob(this.blobs, blob, { missing, keep: true });
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-video-probe-'));
    try {
      const file = path.join(dir, 'input');
      await writeFile(file, bytes);
      return await probe(file);
    } catch (err) {
      if (err instanceof NotAVideoError) throw DomainError.validation([{ path: at, message: err.message }]);
      throw err;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
