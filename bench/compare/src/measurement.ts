import { CpuByGroup, platformTotal } from './cpu-groups';
import { LoadResult, StreamResult } from './gateway-overhead';
import { baselineName, Scenario, System } from './scenarios';

/** One system loaded in one scenario. */
export interface Measurement {
  system: System;
  scenario: string;
  load: LoadResult;
  /** CPU ms per completed request (2xx or not) during the measured run, by group. */
  cpuMsPerRequest: CpuByGroup;
  /** Resident memory after the run, MB: the gateway process (platform), Portkey's process. */
  rssMb?: number;
  /** The benchmark process itself (the load generator), ms per request. */
  loadGeneratorCpuMsPerRequest: number;
}

export interface CompareResult {
  scenarios: Scenario[];
  measurements: Measurement[];
  /** Sequential streaming requests over one connection, the hot account's key. */
  streaming: Partial<Record<System, StreamResult>>;
  /** Every platform process and its nats-server together, at the end of the run. */
  platformRssMb?: number;
}

/** CPU ms per request of the system's own processes: the fake upstream, the platform with its nats-server, or Portkey. */
export function ownCpuMsPerRequest(m: Measurement): number {
  switch (m.system) {
    case 'direct':
      return m.cpuMsPerRequest.upstream ?? Number.NaN;
    case 'platform':
      return platformTotal(m.cpuMsPerRequest);
    case 'portkey':
      return m.cpuMsPerRequest.portkey ?? Number.NaN;
  }
}

export function findMeasurement(result: CompareResult, system: System, scenario: string): Measurement | undefined {
  return result.measurements.find((m) => m.system === system && m.scenario === scenario);
}

/** p50 latency of `m` minus the direct run's in the same mode and connection count (NaN without one). */
export function addedP50(result: CompareResult, m: Measurement): number {
  const scenario = result.scenarios.find((s) => s.name === m.scenario);
  const direct = scenario && findMeasurement(result, 'direct', baselineName(scenario));
  return direct ? m.load.latencyMs.p50 - direct.load.latencyMs.p50 : Number.NaN;
}

/** Streaming first byte p50 of `system` minus the direct one's. */
export function firstByteAddedP50(result: CompareResult, system: System): number {
  const own = result.streaming[system];
  const direct = result.streaming.direct;
  return own && direct ? own.firstByteMs.p50 - direct.firstByteMs.p50 : Number.NaN;
}
