import { headers as natsHeaders, NatsConnection, NatsError, ErrorCode as NatsErrorCode } from 'nats';
import { EventMap, EventSubject, RpcReply, RpcRequest, RpcSubject } from '@svc/contracts';
import { DomainError, ErrorCode, isErrorPayload } from '@svc/errors';
import { NATS_HEADER } from '@svc/headers';
import { decodeJson, encodeJson, NestReplyPacket } from './wire';

export interface CallOptions {
  requestId?: string;
  timeoutMs?: number;
}

/** The one way to call a service: typed subjects, request ids in headers, errors as DomainError. */
export class RpcClient {
  /** Nest's reply correlation id; the NATS inbox already makes replies unique per request. */
  private sequence = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly defaultTimeoutMs: number,
  ) {}

  async send<S extends RpcSubject>(subject: S, data: RpcRequest<S>, options: CallOptions = {}): Promise<RpcReply<S>> {
    const h = natsHeaders();
    if (options.requestId) h.set(NATS_HEADER.requestId, options.requestId);
    const packet = { pattern: subject, data, id: String(++this.sequence) };
    let bytes: Uint8Array;
    try {
      const msg = await this.nc.request(subject, encodeJson(packet), { timeout: options.timeoutMs ?? this.defaultTimeoutMs, headers: h });
      bytes = msg.data;
    } catch (err) {
      throw toTransportError(subject, err);
    }
    const reply = decodeJson<NestReplyPacket<RpcReply<S>>>(bytes);
    if (reply.err !== undefined && reply.err !== null) {
      throw isErrorPayload(reply.err) ? DomainError.fromPayload(reply.err) : new DomainError(ErrorCode.Internal, 'Internal server error');
    }
    return reply.response as RpcReply<S>;
  }

  emit<S extends EventSubject>(subject: S, data: EventMap[S], options: { requestId?: string } = {}): void {
    const h = natsHeaders();
    if (options.requestId) h.set(NATS_HEADER.requestId, options.requestId);
    this.nc.publish(subject, encodeJson({ pattern: subject, data }), { headers: h });
  }
}

function serviceOf(subject: string): string {
  return subject.slice(0, subject.indexOf('.'));
}

export function toTransportError(subject: string, err: unknown): DomainError {
  const code = (err as NatsError | undefined)?.code;
  if (code === NatsErrorCode.NoResponders) {
    return new DomainError(ErrorCode.ServiceUnavailable, `The ${serviceOf(subject)} service is unavailable. Try again shortly.`);
  }
  if (code === NatsErrorCode.Timeout) {
    return new DomainError(ErrorCode.Timeout, `The ${serviceOf(subject)} service did not answer in time.`);
  }
  return new DomainError(ErrorCode.ServiceUnavailable, 'The message bus is unavailable. Try again shortly.');
}
