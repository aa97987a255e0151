import { addDays, utcDay, windowStart } from './periods';

describe('periods', () => {
  it('starts each window at its UTC boundary', () => {
    expect(windowStart('EPOCH', '2026-11-22')).toBe('2026-11-22T00:00:00.000Z');
    expect(windowStart('MONTH', '2026-11-22')).toBe('2026-11-01T00:00:00.000Z');
    expect(windowStart('LIFETIME', '2026-11-22')).toBe('1970-01-01T00:00:00.000Z');
  });

  it('counts days in UTC, across month and year ends', () => {
    expect(utcDay(new Date('2026-11-22T23:59:59.999-05:00'))).toBe('2026-11-23');
    expect(addDays('2026-12-30', 3)).toBe('2027-01-02');
    expect(addDays('2026-03-01', -6)).toBe('2026-02-23');
  });
});
