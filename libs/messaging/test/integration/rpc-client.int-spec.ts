import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { NatsConnection } from 'nats';
import { DomainError, ErrorCode } from '@svc/errors';
import { createLogger } from '@svc/logging';
import { PrivateNats, startPrivateNats } from '@svc/testing';
import { connectNats, RpcClient, RpcErrorFilter, SvcNatsServer } from '../../src';

// Test-only subjects, sent through the typed client with casts: the contract map lists real ones.
const ECHO = 'keys.cmd.verify.v1';
const FAIL = 'keys.cmd.list.v1';
const SLOW = 'keys.cmd.get.v1';
const CRASH = 'keys.cmd.delete.v1';

@Controller()
class TestHandler {
  @MessagePattern(ECHO)
  echo(@Payload() data: unknown) {
    return { echoed: data };
  }
  @MessagePattern(FAIL)
  fail() {
    throw new DomainError(ErrorCode.NotFound, 'No such thing', { _errors: ['missing'] });
  }
  @MessagePattern(SLOW)
  async slow() {
    await new Promise((r) => setTimeout(r, 500));
    return {};
  }
  @MessagePattern(CRASH)
  crash() {
    throw new Error('secret internal detail');
  }
}

@Module({ controllers: [TestHandler] })
class TestModule {}

describe('RpcClient against a Nest microservice on NATS', () => {
  let nats: PrivateNats;
  let app: INestMicroservice;
  let nc: NatsConnection;
  let rpc: RpcClient;
  const send = (subject: string, data: unknown, timeoutMs?: number) => rpc.send(subject as never, data as never, { requestId: 'r1', timeoutMs });

  beforeAll(async () => {
    nats = await startPrivateNats();
    app = await NestFactory.createMicroservice(TestModule, { strategy: new SvcNatsServer({ servers: [nats.url], queue: 'keys' }), logger: false });
    app.useGlobalFilters(new RpcErrorFilter(createLogger('test', 'silent')));
    await app.listen();
    nc = await connectNats(nats.url, 'client');
    rpc = new RpcClient(nc, 2_000);
  });
  afterAll(async () => {
    rpc.close();
    await nc.close();
    await app.close();
    await nats.stop();
  });

  it('returns the handler reply, for many concurrent calls', async () => {
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => send(ECHO, { i })));
    expect(replies.map((r) => (r as unknown as { echoed: { i: number } }).echoed.i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('turns a domain error into the same DomainError on the caller side', async () => {
    await expect(send(FAIL, {})).rejects.toMatchObject({ code: ErrorCode.NotFound, message: 'No such thing', details: { _errors: ['missing'] } });
  });

  it('hides unexpected handler errors behind a generic internal error', async () => {
    const err = await send(CRASH, {}).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.Internal, message: 'Internal server error' });
    expect(String((err as Error).message)).not.toContain('secret');
  });

  it('answers 503-class at once when no service listens, 504-class when it is too slow', async () => {
    const started = Date.now();
    await expect(send('audio.cmd.nothing.v1', {})).rejects.toMatchObject({ code: ErrorCode.ServiceUnavailable });
    expect(Date.now() - started).toBeLessThan(500);
    await expect(send(SLOW, {}, 100)).rejects.toMatchObject({ code: ErrorCode.Timeout });
  });
});
