import { clockTicksPerSecond, cpuDelta, CpuSnapshot, parseProcStat, processTree, ProcStat } from './proc-cpu';

describe('proc cpu', () => {
  it('reads ppid and utime+stime after a command name with spaces and parentheses', () => {
    const line = '4242 (node (worker) x) S 4000 4242 4242 0 -1 4194304 100 0 0 0 1234 56 7 8 20 0 11 0 999 0 0';
    expect(parseProcStat(line)).toEqual({ pid: 4242, ppid: 4000, comm: 'node (worker) x', ticks: 1290 });
  });

  it('collects a process and all its descendants, and nothing else', () => {
    const stats = new Map<number, ProcStat>(
      [
        [1, 0],
        [10, 1],
        [11, 10],
        [12, 10],
        [13, 12],
        [20, 1],
      ].map(([pid, ppid]) => [pid, { pid, ppid, comm: 'x', ticks: 0 }]),
    );
    expect(
      processTree(stats, 10)
        .map((s) => s.pid)
        .sort(),
    ).toEqual([10, 11, 12, 13]);
    expect(processTree(stats, 99)).toEqual([]);
  });

  it('counts CPU of processes that started during the window and reports the ones that exited', () => {
    const hz = clockTicksPerSecond();
    const snap = (entries: [number, number][]): CpuSnapshot => ({ ticks: new Map(entries), comms: new Map() });
    const delta = cpuDelta(
      snap([
        [1, 100],
        [2, 50],
      ]),
      snap([
        [1, 150],
        [3, 10],
      ]),
    );
    expect(delta.seconds).toBeCloseTo(60 / hz);
    expect(delta.exited).toBe(1);
    expect(delta.processes).toBe(2);
  });
});
