import { NatsConnection } from 'nats';
import { RequestBilling, StreamOpenReply, StreamOpenRequest } from '@svc/contracts';
import { StreamPublisher } from '@svc/messaging';
import { BillingSettler } from './billing-settler';

/** The parts of a streamed request (chat, speech) that opening it needs. */
export interface BilledStreamRequest {
  caller: { requestId: string };
  billing?: RequestBilling;
  stream: StreamOpenRequest;
}

/** A service's stream settings (its validated config). */
export interface StreamSettings {
  STREAM_HEARTBEAT_MS: number;
  STREAM_ACK_TIMEOUT_MS: number;
}

/**
 * The one way a service opens a billed stream. `validate` runs first: when it throws, the hold is
 * released (`failed`, nothing charged) and the error answers the open request, so the client gets
 * a plain HTTP error. Otherwise the publisher opens, the open request is answered at once, and
 * `produce` streams in the background; it settles the request itself (completed, cut or failed).
 */
export function openBilledStream<T>(
  settler: BillingSettler,
  nc: NatsConnection,
  settings: StreamSettings,
  request: BilledStreamRequest,
  validate: () => T,
  produce: (validated: T, publisher: StreamPublisher) => Promise<void>,
): StreamOpenReply {
  let validated: T;
  try {
    validated = validate();
  } catch (err) {
    settler.settle(request.billing, request.caller.requestId, 'failed', null);
    throw err;
  }
  const publisher = new StreamPublisher(nc, request.stream, {
    heartbeatMs: settings.STREAM_HEARTBEAT_MS,
    ackTimeoutMs: settings.STREAM_ACK_TIMEOUT_MS,
    requestId: request.caller.requestId,
  });
  void produce(validated, publisher);
  return publisher.reply();
}
