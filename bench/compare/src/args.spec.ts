import { parseCompareArgs } from './args';

describe('bench:compare arguments', () => {
  const parse = (argv: string[]) => parseCompareArgs(argv, '/repo');

  it('defaults to 10 s runs, 32 connections and 64 accounts', () => {
    expect(parse([])).toMatchObject({
      durationSeconds: 10,
      warmupSeconds: 2,
      primeSeconds: 16,
      connections: 32,
      accounts: 64,
      streamRequests: 200,
      quick: false,
      out: '/repo/bench/compare/last-run.json',
    });
  });

  it('--quick shortens the defaults, and explicit flags still win', () => {
    expect(parse(['--quick'])).toMatchObject({ durationSeconds: 2, warmupSeconds: 1, primeSeconds: 2, streamRequests: 50, quick: true });
    expect(parse(['--quick', '--duration', '5', '--warmup', '0'])).toMatchObject({ durationSeconds: 5, warmupSeconds: 0 });
  });

  it('refuses malformed numbers with the flag named', () => {
    expect(() => parse(['--duration', '0'])).toThrow(/--duration must be an integer >= 1/);
    expect(() => parse(['--connections', '1'])).toThrow(/--connections/);
    expect(() => parse(['--accounts', 'many'])).toThrow(/--accounts/);
    expect(() => parse(['--bogus'])).toThrow(/bogus/);
  });
});
