import { fixtureResult, passing } from './result.fixture';
import { checkTargets, renderChecks } from './targets';

describe('targets', () => {
  it('passes a run that meets every bar, judged against Portkey and the direct runs', () => {
    const checks = checkTargets(fixtureResult(passing), 32);
    expect(checks.map((c) => c.pass)).toEqual([true, true, true, true, true, true, true, true, true]);
    expect(checks[0].detail).toBe('3,100 / 1,000 = 3.10x');
    expect(checks[1].detail).toBe('0.400 / 1.000 ms = 0.40x');
    expect(checks[2].detail).toBe('+1.10 ms');
    expect(checks[3].detail).toBe('+1.40 ms');
    expect(checks[4].detail).toBe('+1.10 / +2.40 ms');
    expect(checks[5].detail).toBe('0.450 / 1.000 ms = 0.45x');
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
    expect(checks.map((c) => c.pass)).toEqual([false, false, false, false, true, false, false, true, false]);
    expect(renderChecks(checks)).toMatch(/^FAIL {2}RPS, non-stream 32 conn 1 acct: platform \/ Portkey: 2,990 \/ 1,000 = 2\.99x \(target >= 3x\)$/m);
  });

  it('fails issue 30’s bars just past each', () => {
    const checks = checkTargets(
      fixtureResult({
        ...passing,
        rps: { ...passing.rps, platform: 2_490 },
        p50: { ...passing.p50, platform: 2.51 },
        cpu: { ...passing.cpu, platform: { ...passing.cpu.platform, gateway: 0.21, redis: 0.6 } },
        firstByteP50: { ...passing.firstByteP50, platform: 1.81 },
      }),
      32,
    ).slice(4);
    expect(checks.map((c) => c.pass)).toEqual([false, false, false, false, false]);
    expect(checks[1].detail).toBe('1.040 / 1.000 ms = 1.04x');
    expect(renderChecks(checks)).toMatch(/^FAIL {2}issue 30: RPS under load \/ Portkey: 2\.49x \(target >= 2\.5x\)$/m);
  });

  it('fails rather than passes when a number is missing', () => {
    const result = fixtureResult(passing);
    result.measurements = result.measurements.filter((m) => m.system !== 'portkey');
    result.streaming = {};
    expect(checkTargets(result, 32).map((c) => c.pass)).toEqual([false, false, true, false, false, false, false, false, false]);
  });
});
