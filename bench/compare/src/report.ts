import { INFRA_GROUPS, PLATFORM_GROUPS } from './cpu-groups';
import { columns, fmt, fmtInt, ratio, signed, times } from './format';
import { addedP50, CompareResult, findMeasurement, firstByteAddedP50, Measurement, ownCpuMsPerRequest } from './measurement';
import { System } from './scenarios';

const SYSTEMS: System[] = ['direct', 'platform', 'portkey'];
const INFRA_TITLES: Record<(typeof INFRA_GROUPS)[number], string> = { 'postgres-bench': 'pg bench DBs', 'postgres-shared': 'pg shared', redis: 'redis' };

const failedOf = (m: Measurement): number => m.load.non2xx + m.load.errors + m.load.timeouts;

/** Per scenario and system: throughput, latency, CPU and memory, and the platform's ratios to Portkey. */
export function renderLoadTable(result: CompareResult): string {
  const rows = [['scenario', 'system', 'RPS', 'p50 ms', 'p99 ms', 'added p50', 'CPU ms/req', 'RPS/Portkey', 'CPU/Portkey', 'RSS MB', 'failed']];
  for (const scenario of result.scenarios) {
    const portkey = findMeasurement(result, 'portkey', scenario.name);
    let first = true;
    for (const system of SYSTEMS) {
      const m = findMeasurement(result, system, scenario.name);
      if (!m) continue;
      const vsPortkey = system === 'platform' && portkey;
      rows.push([
        first ? scenario.name : '',
        system,
        fmtInt(m.load.rps),
        fmt(m.load.latencyMs.p50),
        fmt(m.load.latencyMs.p99),
        system === 'direct' ? '' : signed(addedP50(result, m)),
        fmt(ownCpuMsPerRequest(m), 3),
        vsPortkey ? times(ratio(m.load.rps, portkey.load.rps)) : '',
        vsPortkey ? times(ratio(ownCpuMsPerRequest(m), ownCpuMsPerRequest(portkey))) : '',
        m.rssMb === undefined ? '' : fmtInt(m.rssMb),
        String(failedOf(m)),
      ]);
      first = false;
    }
  }
  return columns(rows, 2);
}

/** Where the platform's CPU goes, ms per request: its processes, then shared infrastructure, then Portkey's total for scale. */
export function renderCpuTable(result: CompareResult): string {
  const rows = [['scenario', ...PLATFORM_GROUPS, 'platform', 'busy cores', ...INFRA_GROUPS.map((g) => INFRA_TITLES[g]), 'Portkey']];
  for (const scenario of result.scenarios) {
    const m = findMeasurement(result, 'platform', scenario.name);
    if (!m) continue;
    const portkey = findMeasurement(result, 'portkey', scenario.name);
    rows.push([
      scenario.name,
      ...PLATFORM_GROUPS.map((g) => fmt(m.cpuMsPerRequest[g] ?? 0, 3)),
      fmt(ownCpuMsPerRequest(m), 3),
      fmt(busyCores(m)),
      ...INFRA_GROUPS.map((g) => fmt(m.cpuMsPerRequest[g] ?? 0, 3)),
      portkey ? fmt(ownCpuMsPerRequest(portkey), 3) : 'n/a',
    ]);
  }
  return columns(rows);
}

/** CPU seconds per second of the system's own processes: well below the machine's cores, something other than CPU limits it. */
export function busyCores(m: Measurement): number {
  return (ownCpuMsPerRequest(m) * (m.load.ok + failedOf(m))) / m.load.durationSeconds / 1000;
}

/** Sequential streaming requests over one kept-alive connection. */
export function renderStreamTable(result: CompareResult): string {
  const rows = [['system', 'first byte p50', 'first byte p99', 'first token p50', 'complete p50', 'added first byte p50']];
  for (const system of SYSTEMS) {
    const s = result.streaming[system];
    if (!s) continue;
    rows.push([
      system,
      fmt(s.firstByteMs.p50),
      fmt(s.firstByteMs.p99),
      fmt(s.firstTokenMs.p50),
      fmt(s.totalMs.p50),
      system === 'direct' ? '' : signed(firstByteAddedP50(result, system)),
    ]);
  }
  return columns(rows);
}

/** Runs that were not all 2xx; their numbers above count 2xx only. */
export function failures(result: CompareResult): string[] {
  return result.measurements
    .filter((m) => failedOf(m) > 0)
    .map(
      (m) =>
        `${m.system}, ${m.scenario}: ${m.load.non2xx} non-2xx, ${m.load.errors} errors, ${m.load.timeouts} timeouts of ${m.load.ok + failedOf(m)} requests`,
    );
}

/** Mean CPU ms per request of the benchmark process (the load generator) over one system's runs. */
export function loadGeneratorCpu(result: CompareResult, system: System): number {
  const runs = result.measurements.filter((m) => m.system === system);
  return runs.reduce((sum, m) => sum + m.loadGeneratorCpuMsPerRequest, 0) / runs.length;
}
