import { readdirSync, readFileSync } from 'node:fs';

export interface Counters {
  cpuMs: number;
  wakeups: number;
  preempted: number;
}

/** CPU (utime + stime) and context switches of a process, summed over its threads. */
export function counters(pid: number): Counters {
  let wakeups = 0;
  let preempted = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
    wakeups += Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
    preempted += Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(stat[11]) + Number(stat[12]);
  return { cpuMs: ticks * 10, wakeups, preempted };
}
