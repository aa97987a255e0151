import { DomainError, ErrorCode } from '@svc/errors';

interface MultipartPart {
  type: 'file' | 'field';
  value?: unknown;
  toBuffer?: () => Promise<Buffer>;
  _buf?: Buffer;
}

const isPart = (v: unknown): v is MultipartPart =>
  typeof v === 'object' && v !== null && ((v as MultipartPart).type === 'file' || (v as MultipartPart).type === 'field');

/**
 * A JSON body as is; a multipart body (attached by @fastify/multipart, see create-app.ts) as a
 * plain object: fields as their string values, files as Buffers. A repeated field keeps the first.
 */
export async function plainBody(body: unknown): Promise<unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const entries = Object.entries(body as Record<string, unknown>);
  if (!entries.some(([, v]) => isPart(v) || (Array.isArray(v) && v.some(isPart)))) return body;
  const out: Record<string, unknown> = {};
  for (const [name, raw] of entries) {
    const part = Array.isArray(raw) ? raw[0] : raw;
    if (!isPart(part)) continue;
    if (part.type === 'file') {
      const data = part._buf ?? (part.toBuffer ? await part.toBuffer() : undefined);
      if (!data)
        throw new DomainError(ErrorCode.Validation, `Could not read the uploaded file "${name}".`, { _errors: [], [name]: { _errors: ['could not be read'] } });
      out[name] = data;
    } else {
      out[name] = part.value;
    }
  }
  return out;
}
