import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { NatsConnection } from 'nats';
import { CHARACTERS } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { createLogger } from '@svc/logging';
import { PrivateNats, startPrivateNats } from '@svc/testing';
import { connectNats, RpcClient, RpcErrorFilter, SvcNatsServer } from '../../src';

// Test-only subjects, sent through the typed client with casts: the contract map lists real ones.
const ECHO = 'keys.cmd.verify.v1';
const FAIL = 'keys.cmd.list.v1';
const SLOW = 'keys.cmd.get.v1';
const CRASH = 'keys.cmd.delete.v1';
const LONG = 'keys.cmd.update.v1';
const HANG = 'keys.cmd.create.v1';
/** A subject with a request schema in @svc/contracts (REQUEST_SCHEMAS). */
const CONTRACTED = CHARACTERS.CREATE;
const received: unknown[] = [];

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
  @MessagePattern(LONG)
  async long() {
    await new Promise((r) => setTimeout(r, 800));
    return { done: true };
  }
  @MessagePattern(HANG)
  hang() {
    return new Promise(() => undefined);
  }
  @MessagePattern(CONTRACTED)
  contracted(@Payload() data: unknown) {
    received.push(data);
    return { ok: true };
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
  let serviceNc: NatsConnection;
  let nc: NatsConnection;
  let rpc: RpcClient;
  const send = (subject: string, data: unknown, timeoutMs?: number, idleTimeoutMs?: number) =>
    rpc.send(subject as never, data as never, { requestId: 'r1', timeoutMs, idleTimeoutMs });

  beforeAll(async () => {
    nats = await startPrivateNats();
    // As bootstrapService does: the server shares the service's one connection.
    serviceNc = await connectNats(nats.url, 'service');
    const server = new SvcNatsServer({ servers: [nats.url], queue: 'keys' });
    server.useConnection(serviceNc);
    app = await NestFactory.createMicroservice(TestModule, { strategy: server, logger: false });
    app.useGlobalFilters(new RpcErrorFilter(createLogger('test', 'silent')));
    await app.listen();
    nc = await connectNats(nats.url, 'client');
    rpc = new RpcClient(nc, 2_000);
  });
  afterAll(async () => {
    rpc.close();
    await nc.close();
    await app.close();
    await serviceNc.close();
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

  it('validates a contracted subject before its handler: a bad payload is a Validation error naming the field, never a crash', async () => {
    const bad = [{ slug: 'Not A Slug', name: 'x', systemPrompt: 'p', modelId: 'm' }, 'a string', null, [1, 2], { slug: 'ok', name: 'x', modelId: 'm' }];
    for (const payload of bad) await expect(send(CONTRACTED, payload)).rejects.toMatchObject({ code: ErrorCode.Validation });
    await expect(send(CONTRACTED, bad[0])).rejects.toMatchObject({ details: { slug: { _errors: [expect.stringMatching(/character slug/)] } } });
    expect(received).toEqual([]);
    // A good one reaches the handler parsed, defaults applied.
    await expect(send(CONTRACTED, { slug: 'ok', name: ' Ok ', systemPrompt: 'Be kind.', modelId: 'm' })).resolves.toEqual({ ok: true });
    expect(received).toEqual([
      {
        slug: 'ok',
        name: 'Ok',
        description: null,
        systemPrompt: 'Be kind.',
        modelId: 'm',
        tags: [],
        categories: [],
        adult: false,
        webEnabled: false,
        featured: false,
      },
    ]);
  });

  it('keeps a slow call alive with heartbeats beyond the idle timeout', async () => {
    await expect(send(LONG, {}, 5_000, 300)).resolves.toEqual({ done: true });
  });

  it('fails a call whose service dies mid-call after the idle timeout, not the overall deadline', async () => {
    const started = Date.now();
    const pending = send(HANG, {}, 30_000, 400);
    await new Promise((r) => setTimeout(r, 100));
    await app.close(); // the service goes away while working: heartbeats stop
    await serviceNc.close();
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.ServiceUnavailable, message: expect.stringMatching(/stopped responding/) });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
