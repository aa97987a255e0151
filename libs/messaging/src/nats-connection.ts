import { connect, NatsConnection } from 'nats';

export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({ servers: url.split(','), name, maxReconnectAttempts: -1, reconnectTimeWait: 500, pingInterval: 10_000 });
}
