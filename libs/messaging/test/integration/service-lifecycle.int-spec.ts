import { connect, NatsConnection } from 'nats';
import { freePort, PrivateNats, ServiceProcess, startPrivateNats, startService } from '@svc/testing';
import { RpcClient } from '../../src';

/**
 * A service's lifecycle (docs/operations.md, "Health" and "Lifecycle"): its own /livez and
 * /readyz on HEALTH_PORT, and at SIGTERM: not ready at once, no new message taken (a caller gets
 * no responders, so another replica would get it), the request in flight answered, exit 0.
 */
describe('a service process', () => {
  let nats: PrivateNats;
  let nc: NatsConnection;
  let service: ServiceProcess;
  let probes: string;

  beforeAll(async () => {
    nats = await startPrivateNats();
    nc = await connect({ servers: nats.url });
    const port = await freePort();
    probes = `http://127.0.0.1:${port}`;
    service = startService('slow', 'libs/messaging/test/integration/support/slow-service.ts', {
      NATS_URL: nats.url,
      HEALTH_PORT: String(port),
      SHUTDOWN_GRACE_MS: '5000',
    });
    await service.waitFor('wallet service ready', 60_000);
  }, 90_000);

  afterAll(async () => {
    await service?.kill();
    await nc?.close();
    await nats?.stop();
  });

  it('is alive and ready once subscribed; at SIGTERM it turns unready, takes nothing new, finishes what it holds and exits 0', async () => {
    expect((await fetch(`${probes}/livez`)).status).toBe(200);
    const ready = await fetch(`${probes}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', draining: false, nats: 'ok' });

    const rpc = new RpcClient(nc, 10_000);
    const send = (ms: number) => rpc.send('wallet.test.slow' as never, { ms } as never) as Promise<{ sleptMs: number }>;
    const inFlight = send(1_500);
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        try {
          process.kill(service.pid, 0);
        } catch {
          clearInterval(poll);
          resolve();
        }
      }, 50);
    });
    process.kill(service.pid, 'SIGTERM');
    await service.waitFor('shutting down: draining', 5_000);

    const draining = await fetch(`${probes}/readyz`);
    expect(draining.status).toBe(503);
    expect(await draining.json()).toMatchObject({ status: 'unavailable', draining: true });
    // Within moments it takes nothing new (its unsubscribe has reached NATS): with no other
    // replica a caller hears "no responders". Messages that reached it before are answered.
    let refused: unknown;
    for (const deadline = Date.now() + 1_000; !refused && Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      refused = await send(1).then(
        (answer) => {
          expect(answer).toEqual({ sleptMs: 1 });
          return undefined;
        },
        (err: unknown) => err,
      );
    }
    expect(String(refused)).toContain('The wallet service is unavailable');
    // The one in flight is answered.
    await expect(inFlight).resolves.toEqual({ sleptMs: 1_500 });
    await exited;
    expect(service.output()).toMatch(/"unfinished":0[^\n]*"msg":"wallet stopped"|"msg":"wallet stopped"[^\n]*"unfinished":0/);
  }, 30_000);
});
