import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, NatsConnection } from 'nats';
import { freePort, natsServerAvailable } from '@svc/testing';
import { connectNats, decodeJson, encodeJson, NestRequestPacket, RpcClient } from '../../src';

const ECHO = 'keys.cmd.verify.v1';
const BIN = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p)) as string;

/** One server of a two-server NATS cluster, on free ports; its clients learn of the other through it. */
function clusterServer(name: string, port: number, routePort: number, otherRoutePort: number): ChildProcess {
  const args = ['-a', '127.0.0.1', '-p', String(port), '-n', name, '--cluster_name', 't'];
  return spawn(BIN, [...args, '--cluster', `nats://127.0.0.1:${routePort}`, '--routes', `nats://127.0.0.1:${otherRoutePort}`], { stdio: 'ignore' });
}

/** A replica of a service: answers ECHO in the `keys` queue group on its own connection. */
function serve(nc: NatsConnection) {
  return nc.subscribe(ECHO, {
    queue: 'keys',
    callback: (_err, msg) => {
      const req = decodeJson<NestRequestPacket>(msg.data);
      msg.respond(encodeJson({ id: req.id, response: { echoed: req.data }, isDisposed: true }));
    },
  });
}

/**
 * A NATS cluster losing the server that every replica of a service was connected to, while the
 * caller's own connection (to another server) stays up: the replicas subscribe again elsewhere a
 * moment later, and a call sent meanwhile must wait for them (the server's INFO says the cluster
 * changed), not answer "unavailable" at once.
 */
(natsServerAvailable() ? describe : describe.skip)('RpcClient on a NATS cluster', () => {
  let a: ChildProcess;
  let b: ChildProcess;
  let caller: NatsConnection;
  afterAll(async () => {
    await caller?.close();
    a?.kill('SIGKILL');
    b?.kill('SIGKILL');
  });

  it('sends a call again while the replicas of a dead server subscribe on another, instead of a 503', async () => {
    const [pa, pb, ra, rb] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    a = clusterServer('a', pa, ra, rb);
    b = clusterServer('b', pb, rb, ra);
    const urlA = `nats://127.0.0.1:${pa}`;
    const urlB = `nats://127.0.0.1:${pb}`;
    // The only replica is on server b, the caller on server a.
    let replica: NatsConnection | undefined;
    for (const deadline = Date.now() + 10_000; !replica && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      replica = await connect({ servers: urlB }).catch(() => undefined);
    }
    serve(replica as NatsConnection);
    caller = await connectNats(`${urlA}`, 'caller');
    const rpc = new RpcClient(caller, 5_000);
    const send = () => rpc.send(ECHO as never, { i: 1 } as never);
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      if (
        await send().then(
          () => true,
          () => false,
        )
      )
        break; // the route is up and the interest known on a
    }
    await expect(send()).resolves.toEqual({ echoed: { i: 1 } });

    b.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 300)); // server a has seen its route drop and told its clients
    const during = send();
    await new Promise((r) => setTimeout(r, 400));
    const moved = await connect({ servers: urlA }); // the replica, subscribed again on the surviving server
    serve(moved);
    await expect(during).resolves.toEqual({ echoed: { i: 1 } });
    await moved.close();
    replica?.close().catch(() => undefined);
  });
});
