/**
 * nats-server's capacity and CPU per request/reply with a given number of Go scheduler threads
 * (docs/operations.md, "The NATS server"): a private nats-server, one responder, CALLERS
 * concurrent callers of 1.5 KB requests for 5 s after 1 s of warm-up.
 *   node -r ./apps/gateway/test/integration/support/register-ts.js bench/count/nats-threads.ts [GOMAXPROCS]
 * Without an argument nats-server runs with the Go runtime's default (one thread per core).
 */
import { spawn } from 'node:child_process';
import { connect } from 'nats';
import { freePort, natsServerBinary } from '@svc/testing';
import { cpuMs } from '../ratelimit/src/proc-cpu';

const CALLERS = 32;
const threads = process.argv[2];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function main(): Promise<void> {
  const bin = natsServerBinary();
  if (!bin) throw new Error('nats-server not found (Debian: apt-get install nats-server)');
  const port = await freePort();
  const env = { ...process.env };
  if (threads) env.GOMAXPROCS = threads;
  else delete env.GOMAXPROCS;
  const server = spawn(bin, ['-a', '127.0.0.1', '-p', String(port)], { env, stdio: 'ignore' });
  await sleep(500);
  const [service, caller] = await Promise.all([connect({ port }), connect({ port })]);
  const body = Buffer.alloc(1_500, 97);
  service.subscribe('bench.echo', { queue: 'q', callback: (_err, msg) => msg.respond(body) });
  await service.flush();
  let done = 0;
  let stop = false;
  const call = async () => {
    while (!stop) {
      await caller.request('bench.echo', body, { timeout: 5_000 });
      done++;
    }
  };
  const callers = Array.from({ length: CALLERS }, call);
  await sleep(1_000);
  const [n0, c0, t0] = [done, cpuMs(server.pid!), Date.now()];
  await sleep(5_000);
  const [n1, c1, t1] = [done, cpuMs(server.pid!), Date.now()];
  stop = true;
  await Promise.all(callers);
  const perSecond = Math.round((n1 - n0) / ((t1 - t0) / 1_000));
  const usPerRequest = (((c1 - c0) / (n1 - n0)) * 1_000).toFixed(1);
  process.stdout.write(`GOMAXPROCS=${threads ?? 'default'}: ${perSecond} requests/s, nats-server ${usPerRequest} us CPU per request\n`);
  await Promise.all([service.close(), caller.close()]);
  server.kill();
}

main().catch((err: Error) => {
  process.stderr.write(`nats-threads: ${err.message}\n`);
  process.exit(1);
});
