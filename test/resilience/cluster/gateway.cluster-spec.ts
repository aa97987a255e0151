import { armKill, balancerState, clusterEnv, crash, platformLog, sentTo, timeUntil } from './support/cluster';
import { CONCURRENCY, describeFailure, killFigures, underLoad } from './support/load';
import { wronglyCharged } from '../support/charge-check';
import { recordResult } from './support/results';

/**
 * One of the two gateways killed (SIGKILL) under chat load through HAProxy: the balancer marks
 * it down within two failed /readyz checks (500 ms apart) and sends nothing more to it; a request
 * sent to it before that finds its port closed and is sent to the other one (`retries 1`,
 * `option redispatch`), so only the requests it held fail. The supervisor restarts it, and the
 * balancer takes it back once it is ready.
 */
describe('a gateway of two killed under load', () => {
  let env: Record<string, string>;
  beforeAll(async () => (env = await clusterEnv()));

  it('the balancer stops sending to it, only its in-flight requests fail, and it comes back', async () => {
    let markedDownMs: number | null = null;
    let sentAfterDown = 0;
    const kill = armKill('gateway-1');
    let killedAt = 0;
    let closedAfterMs = 0;
    const { run, at, result } = await underLoad(env.SVC_ADMIN_KEY, async (now) => {
      killedAt = Date.now();
      const crashed = await crash(kill, 3111, now);
      closedAfterMs = crashed.closedAfterMs;
      markedDownMs = await timeUntil(async () => (await balancerState('gateways/gateway-1')).startsWith('DOWN'), 10_000);
      sentAfterDown = await sentTo('gateways/gateway-1');
      return crashed.closedAt;
    });
    const stillDown = (await balancerState('gateways/gateway-1')).startsWith('DOWN');
    const sentWhileDown = (await sentTo('gateways/gateway-1')) - sentAfterDown;
    const { late, inFlight, figures } = killFigures(run, at, result);
    const backMs = await timeUntil(async () => (await balancerState('gateways/gateway-1')) === 'UP', 120_000);
    const backInRotationMs = backMs === null ? null : Date.now() - killedAt;
    recordResult('gateway killed', { ...figures, portClosedAfterMs: closedAfterMs, markedDownMs, backInRotationMs });
    expect(markedDownMs).not.toBeNull();
    // Nothing reached it while it was down, unless the supervisor had already restarted it.
    if (stillDown) expect(sentWhileDown).toBe(0);
    expect(late.map(describeFailure)).toEqual([]);
    expect(inFlight.length).toBeLessThanOrEqual(CONCURRENCY + 2);
    expect(result.succeeded).toBeGreaterThan(10);
    expect(backMs).not.toBeNull();
    expect(platformLog()).toMatch(/gateway(#\d)? exited \(SIGKILL\); restarting/);
    expect(await wronglyCharged(env.BILLING_DATABASE_URL, run)).toEqual([]);
  });
});
