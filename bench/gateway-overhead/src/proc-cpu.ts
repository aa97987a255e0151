import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime, in clock ticks. */
  ticks: number;
}

/** Parses /proc/<pid>/stat; `comm` may hold spaces and parentheses, so fields are read after the last ')'. */
export function parseProcStat(text: string): ProcStat {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const fields = text
    .slice(close + 2)
    .trim()
    .split(' ');
  // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
  return {
    pid: Number(text.slice(0, open).trim()),
    ppid: Number(fields[1]),
    comm: text.slice(open + 1, close),
    ticks: Number(fields[11]) + Number(fields[12]),
  };
}

export function readAllStats(): Map<number, ProcStat> {
  const stats = new Map<number, ProcStat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = parseProcStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
      stats.set(stat.pid, stat);
    } catch {
      // The process exited between readdir and read.
    }
  }
  return stats;
}

/** `root` and every process below it. */
export function processTree(stats: Map<number, ProcStat>, root: number): ProcStat[] {
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats.values()) {
    const list = children.get(stat.ppid) ?? [];
    list.push(stat);
    children.set(stat.ppid, list);
  }
  const start = stats.get(root);
  if (!start) return [];
  const tree: ProcStat[] = [];
  const queue = [start];
  while (queue.length > 0) {
    const next = queue.shift() as ProcStat;
    tree.push(next);
    queue.push(...(children.get(next.pid) ?? []));
  }
  return tree;
}

let clockTicks: number | undefined;
export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

export interface CpuSnapshot {
  ticks: Map<number, number>;
  comms: Map<number, string>;
}

/** CPU ticks of a process tree (and of extra single processes), to diff before and after a run. */
export function snapshot(roots: number[], extra: number[] = []): CpuSnapshot {
  const stats = readAllStats();
  const ticks = new Map<number, number>();
  const comms = new Map<number, string>();
  for (const root of roots) {
    for (const stat of processTree(stats, root)) {
      ticks.set(stat.pid, stat.ticks);
      comms.set(stat.pid, stat.comm);
    }
  }
  for (const pid of extra) {
    const stat = stats.get(pid);
    if (stat) {
      ticks.set(pid, stat.ticks);
      comms.set(pid, stat.comm);
    }
  }
  return { ticks, comms };
}

export interface CpuDelta {
  /** CPU seconds used between the snapshots by the processes alive at the second one. */
  seconds: number;
  bySeconds: Map<number, number>;
  processes: number;
  /** Processes of the first snapshot gone by the second: their CPU is missing from `seconds`. */
  exited: number;
}

export function cpuDelta(before: CpuSnapshot, after: CpuSnapshot): CpuDelta {
  const hz = clockTicksPerSecond();
  const bySeconds = new Map<number, number>();
  let ticks = 0;
  for (const [pid, t] of after.ticks) {
    const d = t - (before.ticks.get(pid) ?? 0);
    ticks += d;
    bySeconds.set(pid, d / hz);
  }
  let exited = 0;
  for (const pid of before.ticks.keys()) if (!after.ticks.has(pid)) exited++;
  return { seconds: ticks / hz, bySeconds, processes: after.ticks.size, exited };
}

/** A short name for a platform process: the app it runs (`gateway`, `chat`, ...), else its command. */
export function processLabel(pid: number, comm: string): string {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    const app = /dist\/apps\/([^/]+)\/src\/main\.js/.exec(cmdline);
    if (app) return app[1];
    if (cmdline.includes('tools/start/start.js')) return 'start';
  } catch {
    // Exited meanwhile.
  }
  return comm;
}
