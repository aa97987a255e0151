import pino from 'pino';
import { BufferedDestination } from './buffered-destination';

describe('BufferedDestination', () => {
  let writes: string[];
  let dest: BufferedDestination;
  const logger = () => pino({ base: null, timestamp: false }, dest);

  beforeEach(() => {
    jest.useFakeTimers();
    writes = [];
    dest = new BufferedDestination({ write: (data: string) => writes.push(data) }, { flushMs: 100, maxBuffered: 200 });
  });
  afterEach(() => jest.useRealTimers());

  it('writes info lines together after the flush interval, in order', () => {
    const log = logger();
    log.info('one');
    log.info('two');
    expect(writes).toEqual([]);
    jest.advanceTimersByTime(100);
    expect(writes).toHaveLength(1);
    expect(
      writes[0]
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).msg),
    ).toEqual(['one', 'two']);
  });

  it('writes a warning at once, with the lines waiting before it', () => {
    const log = logger();
    log.info('before');
    log.warn('careful');
    expect(writes).toHaveLength(1);
    expect(writes[0]).toContain('"before"');
    expect(writes[0]).toContain('"careful"');
    log.error('broken');
    expect(writes).toHaveLength(2);
  });

  it('writes when enough is waiting, and nothing when nothing is', () => {
    const log = logger();
    for (let i = 0; i < 10; i++) log.info(`line ${i}`);
    expect(writes.length).toBeGreaterThan(0);
    jest.advanceTimersByTime(100);
    const all = writes.join('');
    expect(all.split('\n').filter(Boolean)).toHaveLength(10);
    const count = writes.length;
    dest.flush();
    jest.advanceTimersByTime(1_000);
    expect(writes).toHaveLength(count);
  });

  it("writes what waits on pino's flush, and calls back", () => {
    const log = logger();
    log.info('waiting');
    const done = jest.fn();
    log.flush(done);
    expect(writes).toHaveLength(1);
    expect(done).toHaveBeenCalled();
  });

  it('stops batching once told (shutdown)', () => {
    const log = logger();
    log.info('waiting');
    dest.unbuffered();
    expect(writes).toHaveLength(1);
    log.info('now');
    expect(writes).toHaveLength(2);
  });
});
