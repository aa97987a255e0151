import { connect, NatsConnection } from 'nats';

export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

/** Reconnect forever; no async stack traces (an Error object per request costs more than it helps). */
export const NATS_CONNECTION_OPTIONS = { maxReconnectAttempts: -1, reconnectTimeWait: 500, pingInterval: 10_000, noAsyncTraces: true } as const;

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({ servers: url.split(','), name, ...NATS_CONNECTION_OPTIONS });
}
