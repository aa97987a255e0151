/**
 * The request/reply packet format of @nestjs/microservices' NATS transport, so that a plain
 * `nats` client can call `@MessagePattern` handlers without Nest's per-request subscriptions.
 */
export interface NestRequestPacket<T = unknown> {
  pattern: string;
  data: T;
  id: string;
}

export interface NestReplyPacket<T = unknown> {
  id: string;
  response?: T;
  err?: unknown;
  isDisposed?: boolean;
}

export interface NestEventPacket<T = unknown> {
  pattern: string;
  data: T;
}

const decoder = new TextDecoder();

/** Buffer.from over TextEncoder: 6x faster for a message-sized string (pooled allocation). */
export const encodeJson = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value));
export const decodeJson = <T>(bytes: Uint8Array): T => JSON.parse(decoder.decode(bytes)) as T;
export const decodeText = (bytes: Uint8Array): string => decoder.decode(bytes);
