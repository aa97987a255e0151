import { cpuSecondsByGroup, CpuSample } from './cpu-sampler';

describe('cpu sampler', () => {
  it('sums tick deltas per group, counting processes that started during the run in full', () => {
    const before: CpuSample = new Map([
      [1, { group: 'gateway', ticks: 100 }],
      [2, { group: 'chat', ticks: 50 }],
      [3, { group: 'chat', ticks: 70 }],
    ]);
    const after: CpuSample = new Map([
      [1, { group: 'gateway', ticks: 160 }],
      [2, { group: 'chat', ticks: 60 }],
      [4, { group: 'postgres-bench', ticks: 5 }],
    ]);
    expect(cpuSecondsByGroup(before, after, 100)).toEqual({ gateway: 0.6, chat: 0.1, 'postgres-bench': 0.05 });
  });
});
