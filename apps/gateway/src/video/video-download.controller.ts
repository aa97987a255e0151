import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { BlobStore } from '@svc/blob-store';
import { VIDEO } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { Public } from '../auth/auth.decorators';
import { VideoDownloadSigner } from './video-download-url';
import { VIDEO_BLOBS } from './video-jobs.service';

/** `GET /video/download/{queue_id}?expires&signature`: the signed, keyless `download_url` of a finished video (24 h). */
@Controller('video')
export class VideoDownloadController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly signer: VideoDownloadSigner,
    @Inject(VIDEO_BLOBS) private readonly blobs: BlobStore,
  ) {}

  @Public()
  @Get('download/:queueId')
  async download(
    @Param('queueId') queueId: string,
    @Query() query: Record<string, string | undefined>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const expires = Number(query.expires);
    if (!/^[0-9a-f-]{36}$/.test(queueId) || !this.signer.verify(queueId, expires, query.signature ?? ''))
      throw new DomainError(ErrorCode.Forbidden, 'This download URL is invalid or has expired (they are valid 24 hours).');
    const result = await this.rpc.send(VIDEO.DOWNLOAD, { queueId }, { requestId: request.id });
    if (result.status === 'PROCESSING')
      throw new DomainError(ErrorCode.Conflict, 'The video is not ready yet: poll /video/retrieve until its status is COMPLETED.');
    const bytes = result.status === 'COMPLETED' ? await this.blobs.get(result.video.blobId) : null;
    if (!bytes || result.status !== 'COMPLETED') throw new DomainError(ErrorCode.NotFound, 'The video was deleted or has expired.');
    reply.header(HEADER.contentType, result.contentType);
    return bytes;
  }
}
