import { fmt, fmtInt, ratio, signed, times } from './format';
import { CompareResult, findMeasurement, firstByteAddedP50, addedP50, ownCpuMsPerRequest } from './measurement';
import { scenarioName } from './scenarios';

/** Issue 14's bar for the platform, judged against Portkey and the fake upstream in the same run. */
export const TARGETS = { rpsVsPortkey: 3, cpuVsPortkey: 0.5, addedLatencyMs: 1.5, firstByteAddedMs: 2 } as const;

/**
 * Issue 30's bar: at one connection no slower and no dearer than Portkey (its CPU counted with the
 * platform's own Postgres backends and Redis), and under load a lower CPU bar and a lower RPS bar.
 */
export const ONE_CONNECTION_TARGETS = { rpsVsPortkey: 2.5, cpuVsPortkey: 0.4, oneConnectionCpuVsPortkey: 1, firstByteAddedMs: 1.5 } as const;

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
    ...checkOneConnectionTargets(result, { rps, cpu, added, firstByte }),
  ];
}

function checkOneConnectionTargets(result: CompareResult, loaded: { rps: number; cpu: number; added: number; firstByte: number }): TargetCheck[] {
  const one = scenarioName(1, false, 1);
  const platform = findMeasurement(result, 'platform', one);
  const portkey = findMeasurement(result, 'portkey', one);
  const portkeyAdded = portkey ? addedP50(result, portkey) : Number.NaN;
  const withStores = platform && ownCpuMsPerRequest(platform) + (platform.cpuMsPerRequest['postgres-bench'] ?? 0) + (platform.cpuMsPerRequest.redis ?? 0);
  const portkeyCpu = portkey && ownCpuMsPerRequest(portkey);
  const cpu = ratio(withStores, portkeyCpu);
  const t = ONE_CONNECTION_TARGETS;
  return [
    {
      name: `issue 30: added latency p50, ${one}: platform / Portkey`,
      detail: `${signed(loaded.added)} / ${signed(portkeyAdded)} ms`,
      target: "<= Portkey's",
      pass: loaded.added <= portkeyAdded,
    },
    {
      name: `issue 30: CPU per request, ${one}: platform (incl. nats-server, its Postgres backends and Redis) / Portkey`,
      detail: `${fmt(withStores, 3)} / ${fmt(portkeyCpu, 3)} ms = ${times(cpu)}`,
      target: `<= ${t.oneConnectionCpuVsPortkey}x`,
      pass: cpu <= t.oneConnectionCpuVsPortkey,
    },
    { name: 'issue 30: CPU per request under load / Portkey', detail: times(loaded.cpu), target: `<= ${t.cpuVsPortkey}x`, pass: loaded.cpu <= t.cpuVsPortkey },
    { name: 'issue 30: RPS under load / Portkey', detail: times(loaded.rps), target: `>= ${t.rpsVsPortkey}x`, pass: loaded.rps >= t.rpsVsPortkey },
    {
      name: 'issue 30: streaming first byte added p50',
      detail: `${signed(loaded.firstByte)} ms`,
      target: `<= ${t.firstByteAddedMs} ms`,
      pass: loaded.firstByte <= t.firstByteAddedMs,
    },
  ];
}

export function renderChecks(checks: TargetCheck[]): string {
  return checks.map((c) => `${c.pass ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail} (target ${c.target})`).join('\n');
}
