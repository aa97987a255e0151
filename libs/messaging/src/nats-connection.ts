import { connect, NatsConnection } from 'nats';
import { NATS_MAX_PAYLOAD_BYTES } from '@svc/contracts';

export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

/** Reconnect forever; no async stack traces (an Error object per request costs more than it helps). */
export const NATS_CONNECTION_OPTIONS = { maxReconnectAttempts: -1, reconnectTimeWait: 500, pingInterval: 10_000, noAsyncTraces: true } as const;

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  const nc = await connect({ servers: url.split(','), name, ...NATS_CONNECTION_OPTIONS });
  // Inline payloads and request budgets are sized from NATS_MAX_PAYLOAD_BYTES (@svc/contracts):
  // a server that allows less would refuse messages they let through, so refuse it at boot.
  const maxPayload = nc.info?.max_payload;
  if (maxPayload !== undefined && maxPayload < NATS_MAX_PAYLOAD_BYTES) {
    await nc.close();
    throw new Error(`NATS at ${url} allows messages of ${maxPayload} bytes; set its max_payload to at least ${NATS_MAX_PAYLOAD_BYTES}.`);
  }
  coalesceWrites(nc);
  return nc;
}

interface ProtocolFlush {
  flushPending(): void;
  close(): Promise<void>;
}

/**
 * nats.js writes its outbound buffer to the socket one microtask after the first publish, so a
 * handler that settles with billing and then replies makes two socket writes, and the server two
 * reads: at one request in flight, socket writes were the largest item in every service's CPU
 * profile. Writing once per event-loop turn (setImmediate) sends everything a turn published in
 * one write; `close()` still writes what is pending first. The library's internals are touched
 * only when they look as expected; otherwise its own behaviour stays.
 */
export function coalesceWrites(nc: NatsConnection): void {
  const protocol = (nc as unknown as { protocol?: Partial<ProtocolFlush> }).protocol;
  if (typeof protocol?.flushPending !== 'function' || typeof protocol.close !== 'function') return;
  const flushNow = protocol.flushPending.bind(protocol);
  const close = protocol.close.bind(protocol);
  let scheduled = false;
  const flushTurn = () => {
    scheduled = false;
    flushNow();
  };
  protocol.flushPending = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flushTurn);
  };
  protocol.close = () => {
    flushNow();
    return close();
  };
}
