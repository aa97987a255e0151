import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyRequest } from 'fastify';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { assertBodyDepth } from './body-depth';
import { bodyBudgetExhausted, bodyHoldOf, bodyTooLarge, refuseMidBody } from './body-intake';

/** Largest uploaded file; above it the request fails with 413. */
export const MULTIPART_FILE_LIMIT_BYTES = 32 * 1024 * 1024;
/** Files in one form: the most input images a model may take (OpenAI's image edits take up to 16; catalog `maxInputImages`). */
export const MULTIPART_MAX_FILES = 16;

interface Part {
  type: 'file' | 'field';
  fieldname: string;
  value?: unknown;
  valueTruncated?: boolean;
  fields: Record<string, unknown>;
  file?: Readable & { truncated?: boolean };
  _buf?: Buffer | null;
}

/**
 * multipart/form-data for every route (image edit/upscale, audio, the text parser), parsed in one
 * place: parts are buffered and attached to the body (fields as `{value}`, files as `{filename,
 * mimetype, _buf}`; `plainBody` in image/multipart-body.ts flattens them), counted against the
 * limit and the body budget (body-intake.ts) as they arrive. Every failure of the
 * client's body (no or wrong boundary, a truncated part, no closing delimiter, too many parts, a
 * field or file over its limit) is a 400 or 413 here, never a 500. Endpoints apply their own,
 * smaller size rules; the limits below only stop what nothing accepts.
 */
export async function registerMultipart(app: NestFastifyApplication, bodyLimitBytes: number): Promise<void> {
  await app.register(multipart as never, {
    limits: { fileSize: MULTIPART_FILE_LIMIT_BYTES, files: MULTIPART_MAX_FILES, fields: 64, fieldSize: bodyLimitBytes, parts: 80 },
  });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('preValidation', async (request) => {
      if (!request.isMultipart()) return;
      request.body = await readParts(request, bodyLimitBytes);
    });
}

/**
 * The parts as the body; past `limit` bytes in all (Fastify's bodyLimit does not see multipart) a
 * 413, past what the body budget can take (a body without Content-Length) a 503.
 */
async function readParts(request: FastifyRequest, limit: number): Promise<Record<string, unknown> | undefined> {
  if (Number(request.headers[HEADER.contentLength]) > limit) throw bodyTooLarge(limit);
  // Counted on the socket (a listener on the request would change how busboy reads it); what
  // the socket read before this hook (at most a buffer's worth) is not counted.
  const socket = request.raw.socket;
  const before = socket.bytesRead;
  const hold = bodyHoldOf(request);
  const account = () => {
    const read = socket.bytesRead - before;
    if (read > limit) throw refuseMidBody(request, bodyTooLarge(limit));
    if (hold && !hold.grow(read)) throw refuseMidBody(request, bodyBudgetExhausted());
  };
  let body: Record<string, unknown> | undefined;
  try {
    for await (const raw of request.parts()) {
      const part = raw as unknown as Part;
      account();
      body = part.fields;
      if (part.type === 'file') await bufferFile(part, account);
      else if (part.valueTruncated) throw tooLarge(part.fieldname, 'is larger than the request body limit');
      else assertBodyDepth(part.value, part.fieldname);
    }
    account();
  } catch (err) {
    throw multipartError(err);
  }
  return body;
}

/** `part.toBuffer()`, counting every chunk against the limit and the budget as it arrives. */
async function bufferFile(part: Part, account: () => void): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of part.file as Readable) {
    account();
    chunks.push(chunk as Buffer);
  }
  if (part.file?.truncated) throw tooLarge(part.fieldname, `is larger than ${MULTIPART_FILE_LIMIT_BYTES} bytes`);
  part._buf = Buffer.concat(chunks);
}

function multipartError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  const code = (err as { code?: string } | null)?.code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge((err as { part?: Part }).part?.fieldname ?? 'file', `is larger than ${MULTIPART_FILE_LIMIT_BYTES} bytes`);
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new DomainError(ErrorCode.PayloadTooLarge, `The form has too many parts (at most ${MULTIPART_MAX_FILES} files, 64 fields, 80 parts).`);
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return new DomainError(ErrorCode.MalformedJson, 'A form field declared as application/json is not valid JSON.');
    case 'FST_PROTO_VIOLATION':
      return new DomainError(ErrorCode.Validation, 'A form field name is not allowed (__proto__, constructor, ...).');
    default:
      // busboy's: no boundary, a boundary the body does not use, a truncated part, no closing
      // delimiter, a malformed part header, a client that went away mid-body.
      return new DomainError(
        ErrorCode.Validation,
        'Malformed multipart/form-data body: it must use the boundary named in Content-Type and end with the closing delimiter.',
      );
  }
}

function tooLarge(field: string, reason: string): DomainError {
  return new DomainError(ErrorCode.PayloadTooLarge, `${field} ${reason}.`, { _errors: [], [field]: { _errors: [reason] } });
}
