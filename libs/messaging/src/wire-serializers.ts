import { IncomingEvent, IncomingRequest, NatsRecord, OutgoingResponse, ReadPacket, Serializer } from '@nestjs/microservices';
import { IncomingRequestDeserializer } from '@nestjs/microservices/deserializers';
import { decodeJson, encodeJson } from './wire';

/**
 * The packets of Nest's NATS server in the same JSON as its own serializer and deserializer, with
 * the bytes made as `wire.ts` makes them (Buffer, not nats.js's TextEncoder/TextDecoder codec: the
 * two were 6.6% of the chat service's CPU at one connection) and no spread copy of every reply.
 */
export class WireSerializer implements Serializer<OutgoingResponse | ReadPacket, { data: Uint8Array; headers?: NatsRecord['headers'] }> {
  serialize(packet: OutgoingResponse | ReadPacket): { data: Uint8Array; headers?: NatsRecord['headers'] } {
    const data = (packet as ReadPacket).data;
    if (!(data instanceof NatsRecord)) return { data: encodeJson(packet) };
    return { data: encodeJson(Object.assign({}, packet, { data: data.data })), headers: data.headers };
  }
}

export class WireDeserializer extends IncomingRequestDeserializer {
  override deserialize(value: Uint8Array, options?: Record<string, unknown>): IncomingRequest | IncomingEvent {
    return super.deserialize(decodeJson(value), options);
  }
}
