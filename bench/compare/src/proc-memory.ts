import { readFileSync } from 'node:fs';

/** VmRSS of a /proc/<pid>/status text, in kB; undefined when absent (a zombie, a kernel thread). */
export function parseVmRssKb(status: string): number | undefined {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) : undefined;
}

/** Resident memory of the given processes together, in MB (processes gone meanwhile count 0). */
export function rssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += parseVmRssKb(readFileSync(`/proc/${pid}/status`, 'utf8')) ?? 0;
    } catch {
      // Exited meanwhile.
    }
  }
  return kb / 1024;
}
