import sharp from 'sharp';
import { DomainError, ErrorCode } from '@svc/errors';
import { fetchUpstreamText, hostsOf, UpstreamErrors } from '@svc/upstream';
import { BoundedQueue } from '../diffusion/bounded-queue';
import { RgbImage } from '../diffusion/rgb-image';

export interface UpstreamImageRequest {
  prompt: string;
  negativePrompt?: string;
  /** Asked of the upstream as `size: WxH`; the media service resizes whatever comes back. */
  width?: number;
  height?: number;
  seed?: number;
  steps?: number;
  cfgScale?: number;
  /** Image-to-image: sent to `/images/edits` as a PNG. */
  init?: RgbImage;
}

export interface UpstreamImage {
  rgb: Uint8Array;
  width: number;
  height: number;
  seed: number;
  steps: number;
  cfgScale: number;
}

export interface OpenAiImageEngineOptions {
  /** e.g. `http://127.0.0.1:8000/v1` */
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  maxParallel?: number;
  maxQueue?: number;
}

/**
 * An OpenAI-compatible image server (`POST /images/generations`, `POST /images/edits`, answers
 * `{data: [{b64_json}]}`): vLLM-style servers, LocalAI, or a hosted API. The image comes back
 * decoded to RGB so the media service post-processes it like the embedded model's. Upstream
 * failures are mapped by `@svc/upstream`, as for every engine kind (libs/upstream/README.md).
 */
export class OpenAiImageEngine {
  private readonly queue: BoundedQueue;
  private readonly errors: UpstreamErrors;

  constructor(private readonly options: OpenAiImageEngineOptions) {
    this.errors = new UpstreamErrors('image', { hosts: hostsOf([options.baseUrl]), secrets: [options.apiKey] });
    this.queue = new BoundedQueue(options.maxParallel ?? 4, options.maxQueue ?? 32, 'The image server');
  }

  async ready(): Promise<void> {
    // Nothing to load; reachability shows on the first request.
  }

  async close(): Promise<void> {
    // No pooled connections of our own (global fetch).
  }

  generate(req: UpstreamImageRequest): Promise<UpstreamImage> {
    return this.queue.run(() => this.call(req));
  }

  private async call(req: UpstreamImageRequest): Promise<UpstreamImage> {
    const size = req.width && req.height ? `${req.width}x${req.height}` : undefined;
    const headers: Record<string, string> = {};
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let body: string | FormData;
    let path: string;
    if (req.init) {
      const png = await sharp(Buffer.from(req.init.data), { raw: { width: req.init.width, height: req.init.height, channels: req.init.channels } })
        .png()
        .toBuffer();
      const form = new FormData();
      form.set('model', this.options.model);
      form.set('prompt', req.prompt);
      form.set('response_format', 'b64_json');
      if (size) form.set('size', size);
      form.set('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'image.png');
      body = form;
      path = '/images/edits';
    } else {
      headers['content-type'] = 'application/json';
      body = JSON.stringify({
        model: this.options.model,
        prompt: req.prompt,
        n: 1,
        response_format: 'b64_json',
        ...(size ? { size } : {}),
        ...(req.negativePrompt ? { negative_prompt: req.negativePrompt } : {}),
        ...(req.seed !== undefined ? { seed: req.seed } : {}),
        ...(req.steps !== undefined ? { steps: req.steps } : {}),
        ...(req.cfgScale !== undefined ? { cfg_scale: req.cfgScale } : {}),
      });
      path = '/images/generations';
    }
    const url = this.options.baseUrl.replace(/\/+$/, '') + path;
    const text = await fetchUpstreamText(this.errors, url, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.options.timeoutMs) });
    let b64: string | undefined;
    try {
      b64 = (JSON.parse(text) as { data?: Array<{ b64_json?: string }> }).data?.[0]?.b64_json;
    } catch {
      b64 = undefined;
    }
    if (!b64) throw new DomainError(ErrorCode.Upstream, 'The image server answered without an image.');
    try {
      const { data, info } = await sharp(Buffer.from(b64, 'base64'))
        .flatten({ background: '#ffffff' })
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      return {
        rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
        width: info.width,
        height: info.height,
        seed: req.seed ?? 0,
        steps: req.steps ?? 0,
        cfgScale: req.cfgScale ?? 0,
      };
    } catch {
      throw new DomainError(ErrorCode.Upstream, 'The image server answered an image that could not be decoded.');
    }
  }
}
