import { CpuByGroup } from './cpu-groups';
import { cpuSecondsByGroup, CpuSources, sampleCpu } from './cpu-sampler';
import { clockTicksPerSecond, runLoad, Target } from './gateway-overhead';
import { Measurement } from './measurement';
import { rssMb } from './proc-memory';
import { Scenario, System } from './scenarios';

export interface MeasureOptions {
  durationSeconds: number;
  warmupSeconds: number;
  cpu: CpuSources;
  /** Pids whose resident memory is reported after the run (looked up then: a restarted gateway has a new pid). */
  rssPids?: () => number[];
}

/** Warm-up, then one measured autocannon run with the CPU of every counted process read before and after. */
export async function measure(system: System, scenario: Scenario, target: Target, options: MeasureOptions): Promise<Measurement> {
  if (options.warmupSeconds > 0) await runLoad(target, scenario.connections, options.warmupSeconds);
  const before = sampleCpu(options.cpu);
  const selfBefore = process.cpuUsage();
  const load = await runLoad(target, scenario.connections, options.durationSeconds);
  const self = process.cpuUsage(selfBefore);
  const after = sampleCpu(options.cpu);

  const requests = Math.max(1, load.ok + load.non2xx);
  const cpuMsPerRequest: CpuByGroup = {};
  for (const [group, seconds] of Object.entries(cpuSecondsByGroup(before, after, clockTicksPerSecond()))) {
    cpuMsPerRequest[group as keyof CpuByGroup] = (seconds * 1000) / requests;
  }
  const pids = options.rssPids?.() ?? [];
  return {
    system,
    scenario: scenario.name,
    load,
    cpuMsPerRequest,
    rssMb: pids.length > 0 ? rssMb(pids) : undefined,
    loadGeneratorCpuMsPerRequest: (self.user + self.system) / 1000 / requests,
  };
}
