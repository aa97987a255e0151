import { Inject, Injectable } from '@nestjs/common';
import { BlobStore, parkBlob } from '@svc/blob-store';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { CallerContext, ProbeVideoReply, VIDEO, VideoBlob, VideoConstraints, videoConstraintsOf, VideoUsage } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { RpcClient } from '@svc/messaging';
import { PricingError, quote as priceOf, toNumber, VideoPriceInputError } from '@svc/pricing';
import { CATALOG } from '../models/models.tokens';
import { VIDEO_GATEWAY_CONFIG, VideoGatewayConfig } from './video-gateway.config';
import { urlBytes, VideoUrlFetcher } from './video-inputs';
import { QuoteVideoDto } from './video-request.dto';
import { invalid } from './video-rules';
import { usageOf } from './video-job-plan';

export const VIDEO_BLOBS = Symbol('VIDEO_BLOBS');
export const VIDEO_URL_FETCHER = Symbol('VIDEO_URL_FETCHER');

/** Reference videos and audio clips: each 2 to 15 s, together at most 15 s (the spec's queue table). */
export const REFERENCE_VIDEO_SECONDS = { min: 2, max: 15, total: 15 } as const;
/** Reference audio clips: the same bounds as videos, WAV or MP3 (the reference's `reference_audio_urls`). */
const REFERENCE_AUDIO_FORMATS = new Set(['wav', 'mp3']);

/** The gateway's side of video jobs that is not HTTP: models, inputs, probing and prices. */
@Injectable()
export class VideoJobsGateway {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(VIDEO_BLOBS) private readonly blobs: BlobStore,
    @Inject(VIDEO_URL_FETCHER) private readonly fetcher: VideoUrlFetcher,
    @Inject(VIDEO_GATEWAY_CONFIG) private readonly config: VideoGatewayConfig,
  ) {}

  model(requested: string): { model: ModelDefinition; constraints: VideoConstraints } {
    const model = this.catalog.require(requested, 'video');
    return { model, constraints: videoConstraintsOf(model) };
  }

  /** A URL field's bytes parked in the blob store for the job (deleted by the job when it ends). */
  async park(field: (string | number)[], url: string): Promise<VideoBlob> {
    // Always a blob, never inline: the probe reads it and the job, which outlives this request, takes it.
    const bytes = await urlBytes(field, url, this.fetcher, this.config.VIDEO_INPUT_MAX_BYTES);
    return parkBlob(this.blobs, bytes, this.config.VIDEO_INPUT_TTL_MS, 'the video input');
  }

  /** Duration, frame rate and size of a parked video, measured by the media service (ffprobe). */
  probe(caller: CallerContext, video: VideoBlob): Promise<ProbeVideoReply> {
    return this.rpc.send(VIDEO.PROBE, { caller, video }, { requestId: caller.requestId });
  }

  /** Fetches, measures and forgets a video (the quote of an enhancement needs its duration). */
  async measure(caller: CallerContext, field: string, url: string): Promise<ProbeVideoReply> {
    const blob = await this.park([field], url);
    try {
      return await this.probe(caller, blob);
    } finally {
      await this.blobs.delete(blob.blobId).catch(() => false);
    }
  }

  /** Every reference video measured: each 2 to 15 s, at most 15 s together; their total seconds. */
  async referenceSeconds(caller: CallerContext, urls: string[]): Promise<number | undefined> {
    if (urls.length === 0) return undefined;
    const lengths: number[] = [];
    for (const [i, url] of urls.entries()) lengths.push((await this.measure(caller, `reference_video_urls.${i}`, url)).seconds);
    return checkLengths('reference_video_urls', lengths);
  }

  /** Every reference audio clip measured by the media service: WAV or MP3, each 2 to 15 s, at most 15 s together. */
  async checkReferenceAudio(caller: CallerContext, urls: string[]): Promise<void> {
    const lengths: number[] = [];
    for (const [i, url] of urls.entries()) {
      const blob = await this.park(['reference_audio_urls', i], url);
      const { seconds, format } = await this.rpc
        .send(VIDEO.PROBE_AUDIO, { caller, audio: blob, field: `reference_audio_urls.${i}` }, { requestId: caller.requestId })
        .finally(() => this.blobs.delete(blob.blobId).catch(() => false));
      if (!REFERENCE_AUDIO_FORMATS.has(format)) throw invalid(['reference_audio_urls', i], `must be WAV or MP3 audio (it is ${format})`);
      lengths.push(seconds);
    }
    checkLengths('reference_audio_urls', lengths);
  }

  /** The usage a request is billed for; bad pricing input is a 400 naming its field. */
  usage(model: ModelDefinition, c: VideoConstraints, input: QuoteVideoDto, source?: ProbeVideoReply, referenceSeconds?: number): VideoUsage {
    try {
      return usageOf(model, c, input, source, referenceSeconds);
    } catch (err) {
      throw asHttpError(err);
    }
  }

  /** USD price of a usage at the model's catalog prices. */
  price(model: ModelDefinition, usage: VideoUsage): number {
    try {
      return toNumber(priceOf(model.id, model.pricing, usage).total.usd);
    } catch (err) {
      throw asHttpError(err);
    }
  }
}

/** Reference clips: each 2 to 15 s, at most 15 s together (a 400 naming the clip or the field); their total seconds. */
function checkLengths(field: 'reference_video_urls' | 'reference_audio_urls', lengths: number[]): number {
  const { min, max, total } = REFERENCE_VIDEO_SECONDS;
  for (const [i, seconds] of lengths.entries())
    if (seconds < min || seconds > max) throw invalid([field, i], `must be ${min} to ${max} seconds long (it is ${seconds.toFixed(1)} s)`);
  const sum = lengths.reduce((a, b) => a + b, 0);
  if (sum > total) throw invalid([field], `must be at most ${total} seconds together (they are ${sum.toFixed(1)} s)`);
  return sum;
}

function asHttpError(err: unknown): unknown {
  if (err instanceof VideoPriceInputError) return invalid([err.field], err.message);
  if (err instanceof PricingError) return new DomainError(ErrorCode.ServiceUnavailable, `This model cannot be priced: ${err.message}.`);
  return err;
}
