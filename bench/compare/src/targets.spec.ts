import { fixtureResult, passing } from './result.fixture';
import { checkTargets, renderChecks } from './targets';

describe('targets', () => {
  it('passes a run that meets every bar, judged against Portkey and the direct runs', () => {
    const checks = checkTargets(fixtureResult(passing), 32);
    expect(checks.map((c) => c.pass)).toEqual([true, true, true, true]);
    expect(checks[0].detail).toBe('3,100 / 1,000 = 3.10x');
    expect(checks[1].detail).toBe('0.400 / 1.000 ms = 0.40x');
    expect(checks[2].detail).toBe('+1.10 ms');
    expect(checks[3].detail).toBe('+1.60 ms');
  });

  it('fails each bar just past it', () => {
    const checks = checkTargets(
      fixtureResult({
        ...passing,
        rps: { ...passing.rps, platform: 2_990 },
        p50: { ...passing.p50, platform: 1.61 },
        cpu: { ...passing.cpu, platform: { gateway: 0.45, 'nats-server': 0.06, redis: 5 } },
        firstByteP50: { ...passing.firstByteP50, platform: 2.31 },
      }),
      32,
    );
    expect(checks.map((c) => c.pass)).toEqual([false, false, false, false]);
    expect(renderChecks(checks)).toMatch(/^FAIL {2}RPS, non-stream 32 conn 1 acct: platform \/ Portkey: 2,990 \/ 1,000 = 2\.99x \(target >= 3x\)$/m);
  });

  it('fails rather than passes when a number is missing', () => {
    const result = fixtureResult(passing);
    result.measurements = result.measurements.filter((m) => m.system !== 'portkey');
    result.streaming = {};
    expect(checkTargets(result, 32).map((c) => c.pass)).toEqual([false, false, true, false]);
  });
});
