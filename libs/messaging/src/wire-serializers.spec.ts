import { NatsRecordBuilder } from '@nestjs/microservices';
import { NatsRequestJSONDeserializer } from '@nestjs/microservices/deserializers';
import { NatsRecordSerializer } from '@nestjs/microservices/serializers';
import { headers as natsHeaders } from 'nats';
import { WireDeserializer, WireSerializer } from './wire-serializers';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('WireSerializer and WireDeserializer', () => {
  const ours = new WireSerializer();
  const nest = new NatsRecordSerializer();

  it('write a reply as the bytes Nest writes', () => {
    const reply = { id: '7', response: { model: 'm', choices: [{ text: 'é ✓' }] }, isDisposed: true };
    expect(text(ours.serialize(reply).data)).toBe(text(nest.serialize(reply).data as Uint8Array));
    expect(ours.serialize(reply).headers).toBeUndefined();
    const error = { id: '8', err: { code: 'NOT_FOUND', message: 'No such thing' }, isDisposed: true };
    expect(text(ours.serialize(error).data)).toBe(text(nest.serialize(error).data as Uint8Array));
  });

  it('send a record’s data and headers as Nest does', () => {
    const h = natsHeaders();
    h.set('x-a', '1');
    const packet = { pattern: 'p', data: new NatsRecordBuilder({ a: 1 }).setHeaders(h).build() };
    const serialized = ours.serialize(packet);
    expect(text(serialized.data)).toBe(text(nest.serialize(packet).data as Uint8Array));
    expect(serialized.headers?.get('x-a')).toBe('1');
  });

  it('read a request, and a plain message as the channel’s data, as Nest reads them', () => {
    const request = Buffer.from(JSON.stringify({ pattern: 'chat.cmd.complete.v1', data: { a: [1, 'ü'] }, id: '3' }));
    const plain = Buffer.from(JSON.stringify({ a: 1 }));
    const options = { channel: 'chat.cmd.complete.v1' };
    expect(new WireDeserializer().deserialize(request, options)).toEqual(new NatsRequestJSONDeserializer().deserialize(request, options));
    expect(new WireDeserializer().deserialize(plain, options)).toEqual({ pattern: 'chat.cmd.complete.v1', data: { a: 1 } });
  });
});
