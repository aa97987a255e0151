import { LoadResult } from './load';
import { LatencySummary } from './percentiles';
import { checkTargets, renderTable, SideResult } from './report';

const lat = (p50: number, p99: number): LatencySummary => ({ count: 100, p50, p99, mean: p50, max: p99 });
const load = (connections: number, rps: number, p50: number, p99: number): LoadResult => ({
  connections,
  durationSeconds: 10,
  rps,
  latencyMs: lat(p50, p99),
  ok: rps * 10,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
});
const side = (unloadedP50: number, rps: number, p99: number, ttfb: number, cpu?: number): SideResult => ({
  unloaded: load(1, 1000, unloadedP50, unloadedP50 * 2),
  loaded: load(32, rps, p99 / 2, p99),
  stream: { requests: 10, headersMs: lat(ttfb, ttfb), firstByteMs: lat(ttfb, ttfb), firstTokenMs: lat(ttfb, ttfb), totalMs: lat(ttfb, ttfb) },
  cpuMsPerRequest: cpu,
  loadGeneratorCpuMsPerRequest: 0.02,
});

describe('report', () => {
  const direct = side(0.05, 20_000, 3, 0.3, 0.02);

  it('judges added latency against the direct numbers and throughput and CPU in absolute terms', () => {
    const checks = checkTargets(direct, side(0.9, 2600, 19, 2.2, 0.45));
    expect(checks.map((c) => [c.name, c.pass])).toEqual([
      ['unloaded added latency p50 (ms)', true],
      ['RPS at 32 connections', true],
      ['p99 latency at 32 connections (ms)', true],
      ['streaming first byte added p50 (ms)', true],
      ['CPU per request, platform processes (ms)', true],
    ]);
    expect(checkTargets(direct, side(1.1, 2400, 21, 2.4, 0.6)).every((c) => !c.pass)).toBe(true);
  });

  it('leaves the CPU target out when the platform processes are unknown', () => {
    expect(checkTargets(direct, side(0.5, 3000, 10, 1)).map((c) => c.name)).not.toContain('CPU per request, platform processes (ms)');
  });

  it('shows added latency as platform minus direct', () => {
    const table = renderTable(direct, side(0.55, 3000, 10, 1.3, 0.4));
    expect(table).toMatch(/1 conn: p50 latency \(ms\)\s+0\.05\s+0\.55\s+\+0\.50\s+added < 1/);
    expect(table).toMatch(/32 conn: RPS\s+20,000\s+3,000/);
  });
});
