import { Readable } from 'node:stream';
import { FastifyRequest } from 'fastify';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { bodyBudgetExhausted, bodyHoldOf, bodyTooLarge, refuseMidBody } from './body-intake';

/**
 * A whole request body as one Buffer, counted against BODY_LIMIT_BYTES (413) and the body budget
 * (503) chunk by chunk as it arrives, so a body without Content-Length is refused before it is
 * buffered past either. On a refusal the rest of the stream is discarded, not read. A callback,
 * not a promise: nothing but the caller holds the bytes once it has decoded them.
 */
export function readBody(request: FastifyRequest, payload: Readable, limit: number, done: (err: Error | null, body?: Buffer) => void): void {
  const hold = bodyHoldOf(request);
  const declared = request.headers[HEADER.contentLength];
  const expected = declared === undefined ? undefined : Number(declared);
  let chunks: Buffer[] = [];
  let received = 0;
  const stop = (err: Error) => {
    cleanup();
    chunks = [];
    payload.resume();
    done(err);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) return stop(refuseMidBody(request, bodyTooLarge(limit)));
    if (hold && !hold.grow(received)) return stop(refuseMidBody(request, bodyBudgetExhausted()));
    chunks.push(chunk);
  };
  const onEnd = () => {
    cleanup();
    if (expected !== undefined && received !== expected) return done(new DomainError(ErrorCode.Validation, 'Invalid Content-Length.'));
    // One copy: the chunks are views of socket reads; the caller decodes the result and drops it.
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
    chunks = [];
    done(null, body);
  };
  const onError = (err: Error) => stop(Object.assign(err, { statusCode: 400 }));
  const cleanup = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
  };
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
}
