import { DomainError, ErrorCode } from '@svc/errors';
import { OutboundFetcher } from '@svc/outbound';
import { invalid } from './video-rules';

export type VideoUrlFetcher = Pick<OutboundFetcher, 'fetch'>;

const DATA_URL = /^data:([^;,]*)(;[^,]*)?,/i;

/**
 * The bytes of a URL field: a data URL (base64), or an http(s) URL fetched through the SSRF guard
 * (`@svc/outbound`: public addresses only unless OUTBOUND_ALLOWLIST says otherwise, redirects
 * checked, size capped). Any refusal is a 400 naming the field.
 */
export async function urlBytes(field: (string | number)[], value: string, fetcher: VideoUrlFetcher, maxBytes: number): Promise<Buffer> {
  const text = value.trim();
  const data = DATA_URL.exec(text);
  if (data) {
    if (!data[2]?.toLowerCase().includes('base64')) throw invalid(field, 'must be a base64 data URL (data:<type>;base64,...)');
    const b64 = text.slice(data[0].length).replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw invalid(field, 'is not valid base64');
    const bytes = Buffer.from(b64, 'base64');
    if (bytes.length === 0) throw invalid(field, 'is empty');
    if (bytes.length > maxBytes) throw invalid(field, `must be at most ${Math.floor(maxBytes / 1024 / 1024)} MB`);
    return bytes;
  }
  if (!/^https?:\/\//i.test(text)) throw invalid(field, 'must be an http(s) URL or a data URL');
  let res;
  try {
    res = await fetcher.fetch(text, { limits: { maxBytes } });
  } catch (err) {
    if (err instanceof DomainError && err.code === ErrorCode.Validation) throw invalid(field, `could not be fetched: ${err.message}`);
    throw err;
  }
  if (res.status !== 200) throw invalid(field, `could not be fetched: the server answered HTTP ${res.status}`);
  if (res.body.length === 0) throw invalid(field, 'is empty');
  return res.body;
}
