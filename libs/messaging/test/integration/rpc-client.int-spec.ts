import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ChildProcess, spawn } from 'node:child_process';
import { NatsConnection } from 'nats';
import { CHARACTERS } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { NATS_HEADER } from '@svc/headers';
import { createLogger } from '@svc/logging';
import { REPO_ROOT } from '@svc/config';
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

/** A private NATS, the test service on it (sharing its one connection, as bootstrapService does) and a client. */
async function startRig(rpcTimeoutMs: number) {
  const nats = await startPrivateNats();
  const serviceNc = await connectNats(nats.url, 'service');
  const server = new SvcNatsServer({ servers: [nats.url], queue: 'keys' });
  server.useConnection(serviceNc);
  const app = await NestFactory.createMicroservice(TestModule, { strategy: server, logger: false });
  app.useGlobalFilters(new RpcErrorFilter(createLogger('test', 'silent')));
  await app.listen();
  const nc = await connectNats(nats.url, 'client');
  const rpc = new RpcClient(nc, rpcTimeoutMs);
  const stop = async () => {
    rpc.close();
    await nc.close();
    await app.close();
    await serviceNc.close();
    await nats.stop();
  };
  return { nats, app, serviceNc, nc, rpc, stop };
}

describe('RpcClient against a Nest microservice on NATS', () => {
  let app: INestMicroservice;
  let serviceNc: NatsConnection;
  let rpc: RpcClient;
  const send = (subject: string, data: unknown, timeoutMs?: number, idleTimeoutMs?: number) =>
    rpc.send(subject as never, data as never, { requestId: 'r1', timeoutMs, idleTimeoutMs });

  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ app, serviceNc, rpc, stop } = await startRig(2_000));
  });
  afterAll(() => stop());

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

/**
 * A service in another process (so it keeps beating while this one stalls): it answers LONG after
 * 1.2 s and sends a heartbeat every 50 ms meanwhile, as SvcNatsServer does.
 */
const BEATING_SERVICE = `
const { connect, headers } = require('nats');
(async () => {
  const nc = await connect({ servers: process.argv[1] });
  const beat = headers();
  beat.set(${JSON.stringify(NATS_HEADER.frame)}, 'heartbeat');
  nc.subscribe(${JSON.stringify(LONG)}, {
    callback: (_err, msg) => {
      const to = msg.headers.get(${JSON.stringify(NATS_HEADER.heartbeatTo)});
      const timer = setInterval(() => nc.publish(to, undefined, { headers: beat }), 50);
      const { id } = JSON.parse(Buffer.from(msg.data).toString());
      setTimeout(() => { clearInterval(timer); msg.respond(Buffer.from(JSON.stringify({ id, response: { done: true }, isDisposed: true }))); }, 1200);
    },
  });
  await nc.flush();
  process.stdout.write('ready\\n');
})();
`;

describe('RpcClient in a process that stalls (a busy machine)', () => {
  let nats: PrivateNats;
  let service: ChildProcess;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startPrivateNats();
    service = spawn(process.execPath, ['-e', BEATING_SERVICE, nats.url], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => service.stdout!.once('data', () => resolve()));
    nc = await connectNats(nats.url, 'client');
  });
  afterAll(async () => {
    service.kill();
    await nc.close();
    await nats.stop();
  });

  it('does not call a beating service dead when this process stalled past the idle timeout with its heartbeats unread', async () => {
    const rpc = new RpcClient(nc, 10_000);
    const pending = rpc.send(LONG as never, {} as never, { timeoutMs: 10_000, idleTimeoutMs: 300 });
    await new Promise((r) => setTimeout(r, 150));
    // Busy for twice the idle timeout (after the timers of this turn of the event loop, so the next
    // turn starts with an expired idle timer): the service goes on beating; its beats wait unread.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        for (const until = Date.now() + 600; Date.now() < until;);
        resolve();
      }),
    );
    await expect(pending).resolves.toEqual({ done: true });
    rpc.close();
  });
});

describe('RpcClient across a NATS crash and restart', () => {
  let nats: PrivateNats;
  let serviceNc: NatsConnection;
  let nc: NatsConnection;
  let rpc: RpcClient;
  const send = (subject: string, timeoutMs: number, idleTimeoutMs?: number) => rpc.send(subject as never, { i: 1 } as never, { timeoutMs, idleTimeoutMs });
  const reconnected = (conn: NatsConnection) =>
    (async () => {
      for await (const s of conn.status()) if (s.type === 'reconnect') return;
    })();

  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ nats, serviceNc, nc, rpc, stop } = await startRig(10_000));
    await expect(send(ECHO, 1_000)).resolves.toEqual({ echoed: { i: 1 } });
  });
  afterAll(() => stop());

  it('fails a short call in flight at once when the connection drops, holds calls made while it is down, and sends them on reconnect', async () => {
    const inFlight = send(SLOW, 10_000).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    const back = Promise.all([reconnected(nc), reconnected(serviceNc)]);
    const killedAt = Date.now();
    await nats.kill();
    // Lost with the server: a 503 as soon as the client sees the drop, not at its 10 s timeout.
    await expect(inFlight).resolves.toMatchObject({ code: ErrorCode.ServiceUnavailable, message: expect.stringMatching(/connection was lost/) });
    expect(Date.now() - killedAt).toBeLessThan(1_000);

    await new Promise((r) => setTimeout(r, 100));
    const whileDown = send(ECHO, 10_000);
    await new Promise((r) => setTimeout(r, 1_000));
    await nats.start();
    await back;
    await expect(whileDown).resolves.toEqual({ echoed: { i: 1 } });
  });

  it('fails a held call with 503 (not a timeout) when the bus stays down past its deadline', async () => {
    const back = Promise.all([reconnected(nc), reconnected(serviceNc)]);
    await nats.kill();
    await new Promise((r) => setTimeout(r, 100));
    await expect(send(ECHO, 500)).rejects.toMatchObject({ code: ErrorCode.ServiceUnavailable, message: expect.stringMatching(/bus is unavailable/) });
    await nats.start();
    await back;
    await expect(send(ECHO, 2_000)).resolves.toEqual({ echoed: { i: 1 } });
  });
});

describe('RpcClient when NATS routes a call to a replica that just died', () => {
  let nats: PrivateNats;
  let nc: NatsConnection;
  let serviceNc: NatsConnection;

  beforeAll(async () => {
    nats = await startPrivateNats();
    [nc, serviceNc] = await Promise.all([connectNats(nats.url, 'client'), connectNats(nats.url, 'service')]);
  });
  afterAll(async () => {
    await Promise.all([nc.close(), serviceNc.close()]);
    await nats.stop();
  });

  /** A "replica" that takes the first call and never answers nor beats (dead, its socket not yet closed); a live one subscribes once it has. */
  async function deadThenLive(subject: string) {
    let live = 0;
    serviceNc.subscribe(subject, {
      queue: 'q',
      max: 1,
      callback: () =>
        serviceNc.subscribe(subject, {
          queue: 'q',
          callback: (_err, msg) => {
            live++;
            const { id } = JSON.parse(Buffer.from(msg.data).toString()) as { id: string };
            msg.respond(Buffer.from(JSON.stringify({ id, response: { served: true }, isDisposed: true })));
          },
        }),
    });
    await serviceNc.flush();
    return () => live;
  }

  it('sends a call that got no heartbeat at all once more when it may run twice, and it is served', async () => {
    const served = await deadThenLive('chat.cmd.untaken-a.v1');
    const rpc = new RpcClient(nc, 10_000);
    const started = Date.now();
    await expect(rpc.send('chat.cmd.untaken-a.v1' as never, {} as never, { timeoutMs: 10_000, idleTimeoutMs: 300, resendUntaken: true })).resolves.toEqual({
      served: true,
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(served()).toBe(1);
    rpc.close();
  });

  it('fails it as "stopped responding" when it may not run twice', async () => {
    const served = await deadThenLive('chat.cmd.untaken-b.v1');
    const rpc = new RpcClient(nc, 10_000);
    await expect(rpc.send('chat.cmd.untaken-b.v1' as never, {} as never, { timeoutMs: 10_000, idleTimeoutMs: 300 })).rejects.toMatchObject({
      code: ErrorCode.ServiceUnavailable,
      message: expect.stringMatching(/stopped responding/),
    });
    expect(served()).toBe(0);
    rpc.close();
  });
});
