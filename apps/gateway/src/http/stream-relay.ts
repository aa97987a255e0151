import { ServerResponse } from 'node:http';
import { FastifyReply } from 'fastify';
import { NatsConnection } from 'nats';
import { StreamOpenReply, StreamOpenRequest } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { Frame, StreamReader } from '@svc/messaging';
import { GatewayConfig } from '../config';

/** The parts of a service stream relay that do not depend on what is relayed (SSE, raw audio). */
export interface OpenedStream {
  reader: StreamReader;
  first: Frame;
}

/**
 * Opens a reader, asks the service to stream into it (`open` sends the stream request), and
 * waits for the first frame. An error frame there is thrown as its DomainError, so it still
 * becomes a normal HTTP error.
 */
export async function openStream(
  nc: NatsConnection,
  config: Pick<GatewayConfig, 'STREAM_WINDOW' | 'STREAM_IDLE_TIMEOUT_MS'>,
  open: (stream: StreamOpenRequest) => Promise<StreamOpenReply>,
): Promise<OpenedStream> {
  const reader = new StreamReader(nc, { window: config.STREAM_WINDOW, idleTimeoutMs: config.STREAM_IDLE_TIMEOUT_MS });
  try {
    // batch: the reader splits a message of several chunks (StreamReader), so the service may send them together.
    reader.attach(await open({ inbox: reader.inbox, window: config.STREAM_WINDOW, batch: true }));
  } catch (err) {
    reader.close();
    throw err;
  }
  const first = await reader.next();
  if (first.kind === 'error') throw DomainError.fromPayload(first.error);
  return { reader, first };
}

/**
 * Takes the response over from Fastify and sends the 200 head: the reply's headers, the content
 * type, no caching or proxy buffering, and `extra`. A client that goes away cancels the stream.
 */
export function takeOverResponse(reply: FastifyReply, reader: StreamReader, contentType: string, extra: Record<string, string> = {}): ServerResponse {
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(
    200,
    Object.assign({}, reply.getHeaders() as Record<string, string>, {
      [HEADER.contentType]: contentType,
      [HEADER.cacheControl]: 'no-cache, no-transform',
      ...extra,
      'x-accel-buffering': 'no',
    }),
  );
  raw.on('close', () => {
    if (!raw.writableFinished) reader.cancel();
  });
  return raw;
}

/** Resolves when the stream can take more writes, or is closed. */
export function drained(stream: NodeJS.WritableStream & { destroyed: boolean }): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}
