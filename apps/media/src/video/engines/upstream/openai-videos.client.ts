import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError, ErrorCode } from '@svc/errors';
import { fetchUpstreamText, UpstreamErrors } from '@svc/upstream';
import { UpstreamVideo, upstreamVideoSchema } from './upstream-video.schema';

export interface CreateUpstreamVideo {
  model: string;
  prompt: string;
  /** Whole seconds, as the API's `seconds` string. */
  seconds: string;
  /** `WIDTHxHEIGHT`. */
  size: string;
  /** Image-to-video: sent as the multipart file `input_reference`. */
  image?: { bytes: Buffer; contentType: string };
}

/**
 * The four calls of the OpenAI videos API the adapter makes: create (`POST /videos`, JSON, or
 * multipart with `input_reference`), retrieve (`GET /videos/{id}`), download
 * (`GET /videos/{id}/content`, streamed to a file) and delete (`DELETE /videos/{id}`). Every
 * failure is mapped by `@svc/upstream` (the `video` kind); nothing of the URL or key reaches it.
 */
export class OpenAIVideosClient {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly apiKey: string | undefined,
    private readonly errors: UpstreamErrors,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  async create(req: CreateUpstreamVideo, signal: AbortSignal): Promise<UpstreamVideo> {
    let body: string | FormData;
    const headers = this.headers();
    if (req.image) {
      const form = new FormData();
      form.set('model', req.model);
      form.set('prompt', req.prompt);
      form.set('seconds', req.seconds);
      form.set('size', req.size);
      form.set(
        'input_reference',
        new Blob([new Uint8Array(req.image.bytes)], { type: req.image.contentType }),
        `reference.${extensionOf(req.image.contentType)}`,
      );
      body = form;
    } else {
      headers['content-type'] = 'application/json';
      body = JSON.stringify({ model: req.model, prompt: req.prompt, seconds: req.seconds, size: req.size });
    }
    return this.video(await fetchUpstreamText(this.errors, `${this.base}/videos`, { method: 'POST', headers, body, signal }));
  }

  async retrieve(id: string, signal: AbortSignal): Promise<UpstreamVideo> {
    return this.video(await fetchUpstreamText(this.errors, this.url(id), { headers: this.headers(), signal }));
  }

  /** Streams the finished MP4 to `file`; returns its size in bytes. More than `maxBytes` is a 502. */
  async download(id: string, file: string, maxBytes: number, signal: AbortSignal): Promise<number> {
    let res: Response;
    try {
      res = await fetch(`${this.url(id)}/content?variant=video`, { headers: this.headers(), signal });
    } catch (err) {
      throw this.errors.transport(err);
    }
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      throw this.errors.http(res.ok ? 502 : res.status, text, res.headers.get('retry-after'));
    }
    const limitText = maxBytes >= 2 ** 20 ? `${Math.floor(maxBytes / 2 ** 20)} MiB` : `${maxBytes} bytes`;
    const tooLarge = new DomainError(ErrorCode.Upstream, `The video server answered a video larger than ${limitText}.`);
    if (Number(res.headers.get('content-length') ?? 0) > maxBytes) {
      await res.body.cancel().catch(() => undefined);
      throw tooLarge;
    }
    let bytes = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        done(bytes > maxBytes ? tooLarge : null, chunk);
      },
    });
    try {
      await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>), limit, createWriteStream(file), { signal });
    } catch (err) {
      throw this.errors.transport(err, 'response');
    }
    return bytes;
  }

  /** Deletes the job and its files upstream (cancels it where the server allows); failures are ignored. */
  async remove(id: string): Promise<void> {
    await fetch(this.url(id), { method: 'DELETE', headers: this.headers(), signal: AbortSignal.timeout(10_000) })
      .then((res) => res.body?.cancel())
      .catch(() => undefined);
  }

  private url(id: string): string {
    return `${this.base}/videos/${encodeURIComponent(id)}`;
  }

  private headers(): Record<string, string> {
    return this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {};
  }

  private video(text: string): UpstreamVideo {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw this.errors.transport(err, 'response');
    }
    const parsed = upstreamVideoSchema.safeParse(json);
    if (!parsed.success) throw new DomainError(ErrorCode.Upstream, 'The video server answered something that is not a video job.');
    return parsed.data;
  }
}

function extensionOf(contentType: string): string {
  return contentType === 'image/jpeg' ? 'jpg' : contentType === 'image/webp' ? 'webp' : 'png';
}
