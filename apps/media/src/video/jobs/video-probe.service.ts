import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { BlobStore } from '@svc/blob-store';
import { ProbeVideoReply, ProbeVideoRequest } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { NotAVideoError, probeVideo } from '../ffmpeg/probe-video';
import { BLOB_STORE } from '../../images/tokens';

/** Measures an input video (duration, frame rate, size) for the gateway's pricing and validation. */
@Injectable()
export class VideoProbeService {
  constructor(@Inject(BLOB_STORE) private readonly blobs: BlobStore) {}

  async probe({ video }: ProbeVideoRequest): Promise<ProbeVideoReply> {
    const bytes = await this.blobs.get(video.blobId);
    if (!bytes) throw DomainError.validation([{ path: ['video_url'], message: 'the uploaded video expired before it was read; send it again' }]);
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-video-probe-'));
    try {
      const file = path.join(dir, 'input');
      await writeFile(file, bytes);
      const { seconds, fps, width, height, codec } = await probeVideo(file);
      return { seconds, fps, width, height, codec };
    } catch (err) {
      if (err instanceof NotAVideoError) throw DomainError.validation([{ path: ['video_url'], message: err.message }]);
      throw err;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
