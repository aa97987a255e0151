import { armKill, balancerState, clusterCli, clusterEnv, crash, sleep } from './support/cluster';
import { CONCURRENCY, describeFailure, killFigures, underLoad } from './support/load';
import { wronglyCharged } from '../support/charge-check';
import { recordResult } from './support/results';

const MONITOR = [4321, 4322, 4323];

/** The NATS server with the most clients (gateways and services pick one of the seed list at random). */
async function busiestServer(): Promise<{ name: string; port: number; clients: number }> {
  const counts = await Promise.all(
    MONITOR.map(async (port, i) => ({
      name: `nats-${i + 1}`,
      port: 4301 + i,
      clients: ((await (await fetch(`http://127.0.0.1:${port}/varz`)).json()) as { connections: number }).connections,
    })),
  );
  return counts.sort((a, b) => b.clients - a.clients)[0];
}

/**
 * One of the three NATS servers killed (SIGKILL) under chat load through the balancer: its
 * clients reconnect to the other two (the seed list, then the servers the cluster announced), so
 * no request sent after the kill may fail, and one in flight may fail once, with a 503 (or a
 * stream's error event, which is a 503 sent after the headers).
 */
describe('a NATS server of three killed under load', () => {
  let env: Record<string, string>;
  beforeAll(async () => (env = await clusterEnv()));

  it('costs at most the requests in flight, each a 503; nothing sent after the kill fails', async () => {
    const victim = await busiestServer();
    const kill = armKill(victim.name);
    let closedAfterMs = 0;
    const { run, at, result } = await underLoad(env.SVC_ADMIN_KEY, async (now) => {
      const crashed = await crash(kill, victim.port, now);
      closedAfterMs = crashed.closedAfterMs;
      return crashed.closedAt;
    });
    const { late, inFlight, figures } = killFigures(run, at, result);
    recordResult('NATS server killed', { server: `${victim.name} (${victim.clients} clients)`, portClosedAfterMs: closedAfterMs, ...figures });
    expect(late.map(describeFailure)).toEqual([]);
    // In flight: the clients' requests and probes in flight at the kill, each failed once with a 503.
    expect(inFlight.length).toBeLessThanOrEqual(CONCURRENCY + 2);
    expect(inFlight.filter((s) => s.status !== 503 && !(s.status === 200 && /error/.test(s.detail ?? ''))).map(describeFailure)).toEqual([]);
    expect(result.succeeded).toBeGreaterThan(10);

    // The server comes back and rejoins the mesh; the gateways stay in rotation throughout.
    await clusterCli('start', victim.name);
    expect(await balancerState('gateways/gateway-1')).toBe('UP');
    expect(await balancerState('gateways/gateway-2')).toBe('UP');
    await sleep(500);
    expect(await wronglyCharged(env.BILLING_DATABASE_URL, run)).toEqual([]);
  });
});
