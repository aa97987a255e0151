import sharp from 'sharp';
import { DomainError, ErrorCode } from '@svc/errors';
import { fetchUpstreamText, hostsOf, UpstreamErrors } from '@svc/upstream';
import { BoundedQueue } from '../diffusion/bounded-queue';
import { UpstreamImage, UpstreamImageRequest } from '../upstream/openai-image.engine';

export interface SdapiImageEngineOptions {
  /** The server root, e.g. `http://127.0.0.1:7860`. */
  baseUrl: string;
  /** `override_settings.sd_model_checkpoint`; absent: the loaded checkpoint. */
  checkpoint?: string;
  sampler?: string;
  /** `user:password` (HTTP Basic, the web UI's `--api-auth`) or a bearer token (a proxy in front). */
  auth?: string;
  timeoutMs: number;
  maxParallel?: number;
  maxQueue?: number;
  /** img2img re-noising, 0..1. */
  denoisingStrength?: number;
}

/** What the web UI answers on txt2img and img2img; `info` is a JSON string. */
interface SdapiReply {
  images?: unknown;
  info?: unknown;
}

/** The web UI works on multiples of 8 (the latent grid); the media service resizes to the exact size. */
const toGrid = (n: number) => Math.max(64, Math.round(n / 8) * 8);

/**
 * The AUTOMATIC1111 / Forge web UI API (`--api`): generation posts to `/sdapi/v1/txt2img`, edits
 * to `/sdapi/v1/img2img` with the input as a base64 PNG; both answer base64 images, decoded here
 * to RGB so the media service post-processes them like the embedded model's. Variants are one
 * call with `batch_size` (the server gives them seeds `seed, seed+1, ...`, like the embedded
 * model); a grid image the server may put first is dropped. At most `maxParallel` calls at a time
 * (the web UI renders one job at a time anyway), `maxQueue` waiting, then 503.
 */
export class SdapiImageEngine {
  private readonly queue: BoundedQueue;
  private readonly root: string;
  /** The web UI's FastAPI error shapes are read by the shared mapper, which scrubs its host and credentials. */
  private readonly errors: UpstreamErrors;

  constructor(private readonly options: SdapiImageEngineOptions) {
    this.queue = new BoundedQueue(options.maxParallel ?? 1, options.maxQueue ?? 16, 'The image server');
    this.root = options.baseUrl.replace(/\/+$/, '');
    const password = options.auth?.includes(':') ? options.auth.slice(options.auth.indexOf(':') + 1) : undefined;
    this.errors = new UpstreamErrors('image', { hosts: hostsOf([options.baseUrl]), secrets: [options.auth, password] });
  }

  async ready(): Promise<void> {
    // Nothing to load; reachability shows on the first request.
  }

  async close(): Promise<void> {
    // No pooled connections of our own (global fetch).
  }

  async generate(req: UpstreamImageRequest): Promise<UpstreamImage> {
    return (await this.generateBatch(req, 1))[0];
  }

  /** `count` images in one call; image i has seed `req.seed + i`. */
  generateBatch(req: UpstreamImageRequest, count: number): Promise<UpstreamImage[]> {
    return this.queue.run(() => this.call(req, count));
  }

  private async call(req: UpstreamImageRequest, count: number): Promise<UpstreamImage[]> {
    const body: Record<string, unknown> = {
      prompt: req.prompt,
      negative_prompt: req.negativePrompt ?? '',
      seed: req.seed ?? -1,
      batch_size: count,
      n_iter: 1,
      send_images: true,
      save_images: false,
      ...(req.width && req.height ? { width: toGrid(req.width), height: toGrid(req.height) } : {}),
      ...(req.steps !== undefined ? { steps: req.steps } : {}),
      ...(req.cfgScale !== undefined ? { cfg_scale: req.cfgScale } : {}),
      ...(this.options.sampler ? { sampler_name: this.options.sampler } : {}),
      ...(this.options.checkpoint ? { override_settings: { sd_model_checkpoint: this.options.checkpoint }, override_settings_restore_afterwards: false } : {}),
    };
    let path = '/sdapi/v1/txt2img';
    if (req.init) {
      const png = await sharp(Buffer.from(req.init.data), { raw: { width: req.init.width, height: req.init.height, channels: req.init.channels } })
        .png()
        .toBuffer();
      Object.assign(body, {
        init_images: [png.toString('base64')],
        denoising_strength: this.options.denoisingStrength ?? 0.6,
        resize_mode: 0,
        include_init_images: false,
      });
      if (!req.width || !req.height) Object.assign(body, { width: toGrid(req.init.width), height: toGrid(req.init.height) });
      path = '/sdapi/v1/img2img';
    }
    const text = await this.post(path, body);
    const reply = parse(text);
    const images = Array.isArray(reply?.images) ? reply.images.filter((i): i is string => typeof i === 'string' && i.length > 0) : [];
    if (images.length < count) throw new DomainError(ErrorCode.Upstream, 'The image server answered without the images asked for.');
    const info = parseInfo(reply?.info);
    // A grid of the batch comes first when the server's "return grid" option is on.
    let first = info.indexOfFirstImage ?? images.length - count;
    if (first + count > images.length) first = images.length - count;
    const seed = req.seed ?? info.seeds?.[0] ?? 0;
    return Promise.all(
      images.slice(first, first + count).map(async (b64, i) => ({
        ...(await decode(b64)),
        seed: info.seeds?.[i] ?? seed + i,
        steps: req.steps ?? 0,
        cfgScale: req.cfgScale ?? 0,
      })),
    );
  }

  private async post(path: string, body: Record<string, unknown>): Promise<string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    const auth = this.options.auth;
    if (auth) headers.authorization = auth.includes(':') ? `Basic ${Buffer.from(auth).toString('base64')}` : `Bearer ${auth}`;
    return fetchUpstreamText(this.errors, this.root + path, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
  }
}

function parse(text: string): SdapiReply | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' ? (value as SdapiReply) : undefined;
  } catch {
    return undefined;
  }
}

/** `all_seeds` and `index_of_first_image` from the reply's `info` (a JSON string), when present. */
function parseInfo(info: unknown): { seeds?: number[]; indexOfFirstImage?: number } {
  let value: unknown = info;
  if (typeof info === 'string') {
    try {
      value = JSON.parse(info);
    } catch {
      return {};
    }
  }
  if (!value || typeof value !== 'object') return {};
  const { all_seeds: seeds, index_of_first_image: first } = value as { all_seeds?: unknown; index_of_first_image?: unknown };
  return {
    seeds: Array.isArray(seeds) && seeds.every((s) => Number.isInteger(s)) ? (seeds as number[]) : undefined,
    indexOfFirstImage: Number.isInteger(first) && (first as number) >= 0 ? (first as number) : undefined,
  };
}

async function decode(b64: string): Promise<{ rgb: Uint8Array; width: number; height: number }> {
  try {
    const bytes = Buffer.from(b64.replace(/^data:[^,]*,/, ''), 'base64');
    const { data, info } = await sharp(bytes).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  } catch {
    throw new DomainError(ErrorCode.Upstream, 'The image server answered an image that could not be decoded.');
  }
}
