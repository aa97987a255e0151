import { readFileSync } from 'node:fs';
import { CpuByGroup, CpuGroup, platformGroup, postgresGroup } from './cpu-groups';
import { processLabel, processTree, ProcStat, readAllStats } from './gateway-overhead';

/** The processes whose CPU a measurement counts. */
export interface CpuSources {
  /** `node tools/start/start.js`: it and every descendant are the platform. */
  platformRoot: number;
  nats?: number;
  redis?: number;
  portkey: number;
  upstream?: number;
  /** Postgres backends of these databases are counted as the bench's (see postgresGroup). */
  postgresDatabases: string[];
}

/** utime+stime ticks and group of every counted process, at one instant. */
export type CpuSample = Map<number, { group: CpuGroup; ticks: number }>;

export function sampleCpu(sources: CpuSources): CpuSample {
  const stats = readAllStats();
  const sample: CpuSample = new Map();
  const add = (stat: ProcStat | undefined, group: CpuGroup): void => {
    if (stat) sample.set(stat.pid, { group, ticks: stat.ticks });
  };
  for (const stat of processTree(stats, sources.platformRoot)) add(stat, platformGroup(processLabel(stat.pid, stat.comm)));
  for (const stat of processTree(stats, sources.portkey)) add(stat, 'portkey');
  if (sources.nats !== undefined) add(stats.get(sources.nats), 'nats-server');
  if (sources.redis !== undefined) add(stats.get(sources.redis), 'redis');
  if (sources.upstream !== undefined) add(stats.get(sources.upstream), 'upstream');
  for (const stat of stats.values()) {
    if (stat.comm !== 'postgres') continue;
    const group = postgresGroup(cmdline(stat.pid), sources.postgresDatabases);
    if (group) add(stat, group);
  }
  return sample;
}

/**
 * CPU seconds per group between two samples. A process that started in between counts all its
 * ticks; one that exited in between is missing from `after` and not counted (as in proc-cpu).
 */
export function cpuSecondsByGroup(before: CpuSample, after: CpuSample, ticksPerSecond: number): CpuByGroup {
  const seconds: CpuByGroup = {};
  for (const [pid, { group, ticks }] of after) {
    seconds[group] = (seconds[group] ?? 0) + (ticks - (before.get(pid)?.ticks ?? 0)) / ticksPerSecond;
  }
  return seconds;
}

/** Pids of the platform's processes with the given label (`gateway`, ...), and all of them without one. */
export function platformPids(root: number, label?: string): number[] {
  return processTree(readAllStats(), root)
    .filter((stat) => label === undefined || processLabel(stat.pid, stat.comm) === label)
    .map((stat) => stat.pid);
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}
