import { Inject, Injectable } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { NatsConnection } from 'nats';
import { AUDIO, SpeechRequest } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { Frame, NATS_CONNECTION, RpcClient, StreamReader } from '@svc/messaging';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';

/**
 * Relays streamed speech to the HTTP client as raw audio bytes with chunked transfer encoding,
 * chunk by chunk as the audio service encodes it. An error before the first chunk is a normal
 * HTTP error; after it the response is cut (the status line has gone). A client that goes away
 * cancels synthesis.
 */
@Injectable()
export class AudioStreamer {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** Resolves `true` when the whole audio was delivered, `false` when the stream was cut. */
  async relay(request: SpeechRequest, contentType: string, reply: FastifyReply): Promise<boolean> {
    const reader = new StreamReader(this.nc, { window: this.config.STREAM_WINDOW, idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS });
    try {
      reader.attach(await this.rpc.send(AUDIO.SPEECH_STREAM, { ...request, stream: { inbox: reader.inbox, window: this.config.STREAM_WINDOW } }, { requestId: request.caller.requestId }));
    } catch (err) {
      reader.close();
      throw err;
    }
    const first = await reader.next();
    if (first.kind === 'error') throw DomainError.fromPayload(first.error);

    const raw = reply.raw;
    reply.hijack();
    raw.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), [HEADER.contentType]: contentType, [HEADER.cacheControl]: 'no-cache, no-transform', 'x-accel-buffering': 'no' });
    raw.on('close', () => {
      if (!raw.writableFinished) reader.cancel();
    });
    let frame: Frame = first;
    for (;;) {
      if (raw.destroyed) {
        reader.cancel();
        return false;
      }
      if (frame.kind === 'chunk') {
        if (!raw.write(Buffer.from(Buffer.from(frame.body).toString('utf8'), 'base64'))) await drained(raw);
      } else if (frame.kind === 'end') {
        raw.end();
        return true;
      } else {
        raw.destroy(new Error(frame.error.message));
        return false;
      }
      frame = await reader.next();
    }
  }
}

function drained(stream: NodeJS.WritableStream & { destroyed: boolean }): Promise<void> {
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
