import { StopMatcher } from './stop-matcher';

function feed(matcher: StopMatcher, pieces: string[]): { emitted: string; stoppedAt: number } {
  let emitted = '';
  for (let i = 0; i < pieces.length; i++) {
    const { emit, stopped } = matcher.push(pieces[i]);
    emitted += emit;
    if (stopped) return { emitted, stoppedAt: i };
  }
  return { emitted: emitted + matcher.flush(), stoppedAt: -1 };
}

describe('StopMatcher', () => {
  it('passes text through when there are no stop strings', () => {
    const m = new StopMatcher();
    expect(m.push('abc')).toEqual({ emit: 'abc', stopped: false });
    expect(m.flush()).toBe('');
  });

  it('ignores empty stop strings', () => {
    expect(feed(new StopMatcher(['']), ['a', 'b'])).toEqual({ emitted: 'ab', stoppedAt: -1 });
  });

  it('stops inside a single piece and drops the stop string and the rest', () => {
    expect(feed(new StopMatcher(['END']), ['hello END world'])).toEqual({ emitted: 'hello ', stoppedAt: 0 });
  });

  it('finds a stop string split across pieces without emitting any part of it', () => {
    const m = new StopMatcher(['<stop>']);
    expect(m.push('abc<st')).toEqual({ emit: 'abc', stopped: false });
    expect(m.push('o')).toEqual({ emit: '', stopped: false });
    expect(m.push('p>tail')).toEqual({ emit: '', stopped: true });
  });

  it('releases held text once it can no longer start a stop string', () => {
    const m = new StopMatcher(['<stop>']);
    expect(m.push('a<s')).toEqual({ emit: 'a', stopped: false });
    expect(m.push('x')).toEqual({ emit: '<sx', stopped: false });
  });

  it('flushes held text when generation ends without a stop', () => {
    expect(feed(new StopMatcher(['###']), ['one #', '#'])).toEqual({ emitted: 'one ##', stoppedAt: -1 });
  });

  it('uses the earliest of several stop strings', () => {
    expect(feed(new StopMatcher(['world', 'lo w']), ['hello world'])).toEqual({ emitted: 'hel', stoppedAt: 0 });
  });

  it('handles overlapping prefixes', () => {
    expect(feed(new StopMatcher(['aab']), ['a', 'a', 'a', 'b', 'c'])).toEqual({ emitted: 'a', stoppedAt: 3 });
  });

  it('emits nothing after stopping', () => {
    const m = new StopMatcher(['x']);
    m.push('x');
    expect(m.push('more')).toEqual({ emit: '', stopped: true });
    expect(m.flush()).toBe('');
  });
});
