import { platformGroup, platformTotal, postgresGroup } from './cpu-groups';

describe('cpu groups', () => {
  it('names the four hot-path services and puts every other platform process under others', () => {
    expect(['gateway', 'chat', 'billing', 'keys', 'media', 'start', 'node'].map(platformGroup)).toEqual([
      'gateway',
      'chat',
      'billing',
      'keys',
      'others',
      'others',
      'others',
    ]);
  });

  it("counts backends of the bench's databases and the server's helpers, not other users' backends", () => {
    const dbs = ['svc_bench_compare_keys', 'svc_bench_compare_billing'];
    expect(postgresGroup('postgres: 15/main: postgres svc_bench_compare_billing 127.0.0.1(55130) idle', dbs)).toBe('postgres-bench');
    expect(postgresGroup('postgres: 15/main: postgres svc_bench_billing 127.0.0.1(55130) idle', dbs)).toBeUndefined();
    expect(postgresGroup('postgres: 15/main: postgres test [local] idle', dbs)).toBeUndefined();
    expect(postgresGroup('postgres: 15/main: walwriter', dbs)).toBe('postgres-shared');
    expect(postgresGroup('/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main', dbs)).toBe('postgres-shared');
  });

  it('totals the platform with its nats-server and without postgres and redis', () => {
    expect(platformTotal({ gateway: 0.2, chat: 0.1, 'nats-server': 0.05, redis: 1, 'postgres-bench': 1, portkey: 1 })).toBeCloseTo(0.35);
  });
});
