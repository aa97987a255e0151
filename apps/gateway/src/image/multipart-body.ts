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
 * plain object: fields as their string values, files as Buffers. A repeated field keeps the first,
 * except those named in `lists`, which become arrays of all their values (multi-edit's `images`).
 */
export async function plainBody(body: unknown, lists: readonly string[] = []): Promise<unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const entries = Object.entries(body as Record<string, unknown>);
  if (!entries.some(([, v]) => isPart(v) || (Array.isArray(v) && v.some(isPart)))) return body;
  const out: Record<string, unknown> = {};
  for (const [name, raw] of entries) {
    const parts = (Array.isArray(raw) ? raw : [raw]).filter(isPart);
    if (parts.length === 0) continue;
    const values = await Promise.all(parts.map((part) => valueOf(name, part)));
    out[name] = lists.includes(name) ? values : values[0];
  }
  return out;
}

async function valueOf(name: string, part: MultipartPart): Promise<unknown> {
  if (part.type !== 'file') return part.value;
  const data = part._buf ?? (part.toBuffer ? await part.toBuffer() : undefined);
  if (!data)
    throw new DomainError(ErrorCode.Validation, `Could not read the uploaded file "${name}".`, { _errors: [], [name]: { _errors: ['could not be read'] } });
  return data;
}
