import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from 'nats';
import { AUDIO, CHAT, RpcRequest } from '@svc/contracts';
import { NATS_CONNECTION, RpcClient } from '@svc/messaging';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { OpenedStream, openStream } from '../http/stream-relay';

/** The subjects that open a stream from a service. */
type StreamSubject = typeof CHAT.STREAM | typeof AUDIO.SPEECH_STREAM;

/**
 * What the SSE relay (chat) and the raw audio relay (speech) share: asking a service to stream a
 * request into a new reader, under the request's id (`openStream` in http/stream-relay.ts).
 */
@Injectable()
export abstract class ServiceStreamRelay {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  protected open<S extends StreamSubject>(subject: S, request: Omit<RpcRequest<S>, 'stream'>): Promise<OpenedStream> {
    // The spread is the request of `subject` again, with the stream to fill.
    return openStream(this.nc, this.config, (stream) =>
      // Heartbeats while the service opens it: a service that dies after taking the request is a
      // 503 within STREAM_IDLE_TIMEOUT_MS, not a wait for the whole RPC timeout.
      this.rpc.send(subject, Object.assign({}, request, { stream }) as RpcRequest<S>, {
        requestId: request.caller.requestId,
        timeoutMs: this.config.INFERENCE_TIMEOUT_MS,
        idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS,
        resendUntaken: true,
      }),
    );
  }
}
