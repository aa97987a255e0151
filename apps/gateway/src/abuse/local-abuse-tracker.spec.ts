import { LocalAbuseTracker } from './local-abuse-tracker';

let now = 1_000_000;
const tracker = () => new LocalAbuseTracker({ maxFailures: 20, windowMs: 30_000, blockMs: 30_000 }, 100, () => now);

describe('local abuse tracker', () => {
  it('blocks on the 21st failure within the window and lifts after the block time', () => {
    const t = tracker();
    for (let i = 0; i < 20; i++) expect(t.fail('ip:1.2.3.4')).toBeNull();
    expect(t.liftAt('ip:1.2.3.4')).toBeNull();
    expect(t.fail('ip:1.2.3.4')).toBe(now + 30_000);
    expect(t.liftAt('ip:1.2.3.4')).toBe(now + 30_000);
    expect(t.liftAt('ip:5.6.7.8')).toBeNull();
    // Failures while blocked are not counted.
    for (let i = 0; i < 50; i++) expect(t.fail('ip:1.2.3.4')).toBeNull();
    now += 30_000;
    expect(t.liftAt('ip:1.2.3.4')).toBeNull();
    for (let i = 0; i < 20; i++) expect(t.fail('ip:1.2.3.4')).toBeNull();
  });

  it('forgets failures older than the window', () => {
    const t = tracker();
    for (let i = 0; i < 20; i++) t.fail('key:x');
    now += 30_001;
    expect(t.fail('key:x')).toBeNull();
  });
});
