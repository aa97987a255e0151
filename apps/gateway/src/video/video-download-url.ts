import { createHmac, timingSafeEqual } from 'node:crypto';

/** Download URLs are valid 24 hours (the spec). */
export const DOWNLOAD_URL_TTL_MS = 24 * 60 * 60_000;

/**
 * Signed, keyless download URLs of finished videos: `/api/v1/video/download/<queue_id>?expires=<unix s>&signature=<hmac>`.
 * The HMAC-SHA256 covers the job id and the expiry, so neither can be changed; anyone holding the
 * URL can fetch the file until it expires or the job's media is deleted.
 */
export class VideoDownloadSigner {
  constructor(private readonly secret: Buffer) {}

  url(origin: string, queueId: string, now = Date.now()): string {
    const expires = Math.floor((now + DOWNLOAD_URL_TTL_MS) / 1000);
    return `${origin.replace(/\/+$/, '')}/api/v1/video/download/${queueId}?expires=${expires}&signature=${this.signature(queueId, expires)}`;
  }

  /** True when the signature is ours and the URL has not expired. */
  verify(queueId: string, expires: number, signature: string, now = Date.now()): boolean {
    if (!Number.isSafeInteger(expires) || expires * 1000 < now || !/^[0-9a-f]{64}$/.test(signature)) return false;
    return timingSafeEqual(Buffer.from(this.signature(queueId, expires), 'hex'), Buffer.from(signature, 'hex'));
  }

  private signature(queueId: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`video-download\n${queueId}\n${expires}`).digest('hex');
  }
}
