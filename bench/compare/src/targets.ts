import { fmt, fmtInt, ratio, signed, times } from './format';
import { CompareResult, findMeasurement, firstByteAddedP50, addedP50, ownCpuMsPerRequest } from './measurement';
import { scenarioName } from './scenarios';

/** Issue 14's bar for the platform, judged against Portkey and the fake upstream in the same run. */
export const TARGETS = { rpsVsPortkey: 3, cpuVsPortkey: 0.5, addedLatencyMs: 1.5, firstByteAddedMs: 2 } as const;

export interface TargetCheck {
  name: string;
  /** The measured values behind the verdict. */
  detail: string;
  target: string;
  pass: boolean;
}

export function checkTargets(result: CompareResult, connections: number): TargetCheck[] {
  const loaded = scenarioName(connections, false, 1);
  const platform = findMeasurement(result, 'platform', loaded);
  const portkey = findMeasurement(result, 'portkey', loaded);
  const rps = ratio(platform?.load.rps, portkey?.load.rps);
  const platformCpu = platform && ownCpuMsPerRequest(platform);
  const portkeyCpu = portkey && ownCpuMsPerRequest(portkey);
  const cpu = ratio(platformCpu, portkeyCpu);
  const unloaded = findMeasurement(result, 'platform', scenarioName(1, false, 1));
  const added = unloaded ? addedP50(result, unloaded) : Number.NaN;
  const firstByte = firstByteAddedP50(result, 'platform');
  return [
    {
      name: `RPS, ${loaded}: platform / Portkey`,
      detail: `${fmtInt(platform?.load.rps)} / ${fmtInt(portkey?.load.rps)} = ${times(rps)}`,
      target: `>= ${TARGETS.rpsVsPortkey}x`,
      pass: rps >= TARGETS.rpsVsPortkey,
    },
    {
      name: `CPU per request, ${loaded}: platform (incl. nats-server) / Portkey`,
      detail: `${fmt(platformCpu, 3)} / ${fmt(portkeyCpu, 3)} ms = ${times(cpu)}`,
      target: `<= ${TARGETS.cpuVsPortkey}x`,
      pass: cpu <= TARGETS.cpuVsPortkey,
    },
    {
      name: 'added latency p50, non-stream 1 conn 1 acct: platform - direct',
      detail: `${signed(added)} ms`,
      target: `<= ${TARGETS.addedLatencyMs} ms`,
      pass: added <= TARGETS.addedLatencyMs,
    },
    {
      name: 'streaming first byte added p50: platform - direct',
      detail: `${signed(firstByte)} ms`,
      target: `<= ${TARGETS.firstByteAddedMs} ms`,
      pass: firstByte <= TARGETS.firstByteAddedMs,
    },
  ];
}

export function renderChecks(checks: TargetCheck[]): string {
  return checks.map((c) => `${c.pass ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail} (target ${c.target})`).join('\n');
}
