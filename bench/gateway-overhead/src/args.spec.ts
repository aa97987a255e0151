import { BENCH_ADMIN_KEY, parseBenchArgs } from './args';

describe('bench arguments', () => {
  const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseBenchArgs(argv, env, '/repo');

  it('defaults to starting the platform and a 10 s, 32-connection run', () => {
    expect(parse([])).toMatchObject({
      durationSeconds: 10,
      connections: 32,
      startPlatform: true,
      upstreamPort: 0,
      apiKey: BENCH_ADMIN_KEY,
      model: 'bench-upstream',
      out: '/repo/bench/gateway-overhead/last-run.json',
    });
  });

  it('measures a running platform with --no-platform-start --url, and a fixed upstream port', () => {
    const options = parse(['--no-platform-start', '--url', 'http://127.0.0.1:3000/', '--duration', '5', '--connections', '8'], { BENCH_API_KEY: 'k' });
    expect(options).toMatchObject({ startPlatform: false, url: 'http://127.0.0.1:3000', durationSeconds: 5, connections: 8, upstreamPort: 18080, apiKey: 'k' });
  });

  it('refuses inconsistent or malformed flags', () => {
    expect(() => parse(['--no-platform-start'])).toThrow(/--url/);
    expect(() => parse(['--url', 'http://x'])).toThrow(/--no-platform-start/);
    expect(() => parse(['--duration', '0'])).toThrow(/--duration/);
    expect(() => parse(['--connections', 'many'])).toThrow(/--connections/);
    expect(() => parse(['--no-platform-start', '--url', 'http://x', '--profile'])).toThrow(/--profile/);
  });

  it('counts metrics unless --no-metrics (the baseline run)', () => {
    expect(parse([]).metrics).toBe(true);
    expect(parse(['--no-metrics']).metrics).toBe(false);
  });
});
