import sharp, { Metadata } from 'sharp';
import { DomainError, ErrorCode } from '@svc/errors';
import { OutboundFetcher } from '@svc/outbound';

/** The spec's bounds for input images (edit; upscale uses its own pixel cap). */
export const INPUT_LIMITS = { maxBytes: 25 * 1024 * 1024, minPixels: 65_536, maxPixels: 33_177_600 } as const;
const DECODABLE = new Set(['jpeg', 'png', 'webp', 'gif', 'tiff', 'avif', 'heif']);
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export interface InputImage {
  bytes: Buffer;
  width: number;
  height: number;
  format: string;
}

const invalid = (message: string) => DomainError.validation([{ path: ['image'], message }]);

/** Where `image` URLs are fetched from: the SSRF guard (`@svc/outbound`). */
export type ImageUrlFetcher = Pick<OutboundFetcher, 'fetch'>;

/**
 * The `image` field as bytes: a multipart file, a base64 string, a data URL, or an http(s) URL
 * fetched through the SSRF guard (public addresses only unless OUTBOUND_ALLOWLIST says otherwise,
 * at most 25 MB, OUTBOUND_TIMEOUT_MS). A refused or failed fetch is a 400 on `image`.
 */
export async function imageBytesOf(value: Buffer | string, fetcher: ImageUrlFetcher): Promise<Buffer> {
  if (Buffer.isBuffer(value)) return value;
  const text = value.trim();
  if (/^https?:\/\//i.test(text)) return fetchImage(text, fetcher);
  const data = /^data:[^;,]*(;[^,]*)?,/i.exec(text);
  const b64 = (data ? text.slice(data[0].length) : text).replace(/\s+/g, '');
  if (!b64 || !BASE64.test(b64)) throw invalid('must be a file, a base64 string, a data URL or an http(s) URL');
  return Buffer.from(b64, b64.includes('-') || b64.includes('_') ? 'base64url' : 'base64');
}

async function fetchImage(url: string, fetcher: ImageUrlFetcher): Promise<Buffer> {
  let res;
  try {
    res = await fetcher.fetch(url, { limits: { maxBytes: INPUT_LIMITS.maxBytes }, headers: { accept: 'image/*' } });
  } catch (err) {
    if (err instanceof DomainError && err.code === ErrorCode.Validation) throw invalid(`could not be fetched: ${err.message}`);
    throw err;
  }
  if (res.status !== 200) throw invalid(`could not be fetched: the server answered HTTP ${res.status}`);
  return res.body;
}

/**
 * Checks size, type and pixel bounds from the image header (no full decode here: the media
 * service decodes it and answers 400 when the pixels are corrupt).
 */
export async function inspectImage(bytes: Buffer, bounds: { minPixels: number; maxPixels: number }): Promise<InputImage> {
  if (bytes.length === 0) throw invalid('is empty');
  if (bytes.length >= INPUT_LIMITS.maxBytes) throw invalid(`must be smaller than ${INPUT_LIMITS.maxBytes / 1024 / 1024} MB`);
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { failOn: 'error' }).metadata();
  } catch {
    throw invalid('is not a readable image (JPEG, PNG, WebP, GIF, TIFF, AVIF or HEIF)');
  }
  if (!meta.format || !DECODABLE.has(meta.format)) throw invalid(`has an unsupported type${meta.format ? ` (${meta.format})` : ''}`);
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw invalid('has no dimensions');
  const pixels = width * height;
  if (pixels < bounds.minPixels) throw invalid(`must have at least ${bounds.minPixels} pixels (it has ${width}x${height})`);
  if (pixels > bounds.maxPixels) throw invalid(`must have at most ${bounds.maxPixels} pixels (it has ${width}x${height})`);
  return { bytes, width, height, format: meta.format };
}
