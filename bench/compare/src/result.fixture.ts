import { CpuByGroup } from './cpu-groups';
import { LatencySummary, StreamResult } from './gateway-overhead';
import { CompareResult, Measurement } from './measurement';
import { runOrder, scenarios, System } from './scenarios';

/** Made-up numbers for the report and target specs. */
export interface FixtureNumbers {
  rps: Record<System, number>;
  p50: Record<System, number>;
  cpu: Record<System, CpuByGroup>;
  firstByteP50: Record<System, number>;
}

const lat = (p50: number): LatencySummary => ({ count: 100, p50, p99: p50 * 3, mean: p50, max: p50 * 5 });
const stream = (firstByte: number): StreamResult => ({
  requests: 50,
  headersMs: lat(firstByte),
  firstByteMs: lat(firstByte),
  firstTokenMs: lat(firstByte + 0.1),
  totalMs: lat(firstByte + 0.5),
});

export function fixtureResult(n: FixtureNumbers): CompareResult {
  const list = scenarios(32, 64);
  const measurements: Measurement[] = list.flatMap((scenario, i) =>
    runOrder(scenario, i).map((system) => ({
      system,
      scenario: scenario.name,
      load: {
        connections: scenario.connections,
        durationSeconds: 10,
        rps: n.rps[system],
        latencyMs: lat(n.p50[system]),
        ok: n.rps[system] * 10,
        non2xx: 0,
        errors: 0,
        timeouts: 0,
      },
      cpuMsPerRequest: n.cpu[system],
      rssMb: system === 'direct' ? undefined : 150,
      loadGeneratorCpuMsPerRequest: 0.05,
    })),
  );
  return {
    scenarios: list,
    measurements,
    streaming: { direct: stream(n.firstByteP50.direct), platform: stream(n.firstByteP50.platform), portkey: stream(n.firstByteP50.portkey) },
    platformRssMb: 900,
  };
}

/** A run that meets every target. */
export const passing: FixtureNumbers = {
  rps: { direct: 20_000, platform: 3_100, portkey: 1_000 },
  p50: { direct: 0.1, platform: 1.2, portkey: 2.5 },
  cpu: {
    direct: { upstream: 0.02 },
    platform: {
      gateway: 0.2,
      chat: 0.08,
      billing: 0.05,
      keys: 0.01,
      others: 0.01,
      'nats-server': 0.05,
      'postgres-bench': 0.03,
      'postgres-shared': 0.01,
      redis: 0.02,
    },
    portkey: { portkey: 1.0 },
  },
  firstByteP50: { direct: 0.3, platform: 1.7, portkey: 30 },
};
