import { Inject, Injectable } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { BlobStore } from '@svc/blob-store';
import { CompleteVideoReply, QueueVideoReply, VIDEO, VideoBlob, VideoJobRef } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, NO_TOKENS } from '../admission/admission.service';
import { AuthenticatedRequest } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { setModelHeaders } from '../models/model-headers';
import { VideoDownloadSigner } from './video-download-url';
import { VIDEO_GATEWAY_CONFIG, VideoGatewayConfig } from './video-gateway.config';
import { jobSpecOf } from './video-job-plan';
import { VIDEO_BLOBS, VideoJobsGateway } from './video-jobs.service';
import { checkRegion } from './video-region';
import { VideoRetrieveLimit } from './video-retrieve-limit';
import { CompleteVideoDto, QueueVideoDto, QuoteVideoDto, RetrieveVideoDto } from './video-request.dto';
import { checkQueueRules } from './video-rules';

/**
 * The video API (spec "Video"; docs/video.md): quote, queue, retrieve, complete. Jobs run in the
 * media service on BullMQ; the credit of a job's quote is held at queue time and the media
 * service settles it once when the job ends (released when it fails). Models, inputs, probing and
 * prices are VideoJobsGateway's (video-jobs.service.ts).
 */
@Injectable()
export class VideoPipeline {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    private readonly videos: VideoJobsGateway,
    private readonly signer: VideoDownloadSigner,
    private readonly retrieveLimit: VideoRetrieveLimit,
    @Inject(VIDEO_BLOBS) private readonly blobs: BlobStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(VIDEO_GATEWAY_CONFIG) private readonly videoConfig: VideoGatewayConfig,
  ) {}

  async quote(call: RouteCall, input: QuoteVideoDto): Promise<{ quote: number }> {
    const { caller, request, reply } = call;
    const { model, constraints } = this.videos.model(input.model);
    setModelHeaders(reply, model);
    checkRegion(model.id, constraints, request.headers, request.ip);
    const source = input.video_url ? await this.videos.measure(caller, 'video_url', input.video_url) : undefined;
    return { quote: this.videos.price(model, this.videos.usage(model, constraints, input, source)) };
  }

  async queue(call: RouteCall, input: QueueVideoDto): Promise<QueueVideoReply & { download_url?: string }> {
    const { caller, request } = call;
    const { model, constraints } = this.videos.model(input.model);
    const admission = this.admission.forModel(call, model);
    checkRegion(model.id, constraints, request.headers, request.ip);
    checkQueueRules(input, constraints);
    const parked: VideoBlob[] = [];
    try {
      const video = input.video_url ? await this.videos.park(['video_url'], input.video_url) : undefined;
      if (video) parked.push(video);
      const image = input.image_url ? await this.videos.park(['image_url'], input.image_url) : undefined;
      if (image) parked.push(image);
      const source = video ? await this.videos.probe(caller, video) : undefined;
      const referenceSeconds = await this.videos.referenceSeconds(caller, input.reference_video_urls ?? []);
      await this.videos.checkReferenceAudio(caller, input.reference_audio_urls ?? []);
      const usage = this.videos.usage(model, constraints, input, source, referenceSeconds);
      this.videos.price(model, usage); // a model that cannot be priced is refused before any hold
      const job = { ...jobSpecOf(model, constraints, input, source, referenceSeconds), video, image };
      const storeOutput = constraints.downloadUrl;
      const queued = await admission.run(
        usage,
        async ({ billing }) => ({
          result: await this.rpc.send(VIDEO.QUEUE, { caller, job, usage, billing, storeOutput }, { requestId: caller.requestId }),
          usage: NO_TOKENS,
        }),
        // The job's own hold, not the lease's; it stays open after this settlement: the job's worker settles it when the job ends.
        { ownReservation: true },
      );
      parked.length = 0; // the job owns its inputs now
      return storeOutput ? { ...queued, download_url: this.signer.url(this.origin(request), queued.queue_id) } : queued;
    } finally {
      await Promise.all(parked.map((b) => this.blobs.delete(b.blobId).catch(() => false)));
    }
  }

  async retrieve(call: RouteCall, input: RetrieveVideoDto): Promise<unknown> {
    const { caller, reply } = call;
    const { model, constraints } = this.videos.model(input.model);
    setModelHeaders(reply, model);
    const ref = { caller, model: model.id, queueId: input.queue_id };
    return this.retrieveLimit.run(call, model, () => this.retrieveJob(ref, input.delete_media_on_completion, constraints.downloadUrl, reply));
  }

  /** Status JSON, or the video's bytes (JSON only for a model with a download URL). */
  private async retrieveJob(ref: VideoJobRef, deleteMedia: boolean, downloadUrl: boolean, reply: FastifyReply): Promise<unknown> {
    const { caller, queueId } = ref;
    const result = await this.rpc.send(
      VIDEO.RETRIEVE,
      { ...ref, deleteMediaOnCompletion: deleteMedia },
      { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS },
    );
    if (result.status === 'FAILED')
      throw new DomainError(ErrorCode.Upstream, `The video job ${queueId} failed: ${result.error}. Its credit hold was released; queue it again.`);
    if (result.status !== 'COMPLETED') return result;
    // Models with a download URL answer JSON only; the file is fetched from the URL.
    if (downloadUrl) return { status: 'COMPLETED', average_execution_time: 0, execution_duration: 0 };
    const bytes = await this.blobs.get(result.video.blobId);
    if (!bytes) throw new DomainError(ErrorCode.NotFound, `The video of job ${queueId} was deleted or has expired.`);
    if (deleteMedia) await this.rpc.send(VIDEO.COMPLETE, ref, { requestId: caller.requestId });
    reply.header(HEADER.contentType, result.contentType);
    return bytes;
  }

  complete(call: RouteCall, input: CompleteVideoDto): Promise<CompleteVideoReply> {
    const { caller } = call;
    const { model } = this.videos.model(input.model);
    return this.rpc.send(VIDEO.COMPLETE, { caller, model: model.id, queueId: input.queue_id }, { requestId: caller.requestId });
  }

  private origin(request: AuthenticatedRequest): string {
    return this.videoConfig.PUBLIC_BASE_URL ?? `${request.protocol}://${request.host}`;
  }
}
