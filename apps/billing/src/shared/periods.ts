import { LimitPeriod } from '@svc/contracts';

/** The UTC day of an instant, YYYY-MM-DD: the DIEM epoch and the EPOCH limit window. */
export function utcDay(at: Date = new Date()): string {
  return at.toISOString().slice(0, 10);
}

export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return utcDay(date);
}

/** Where the current window of a limit period starts (ISO, UTC); LIFETIME has no start. */
export function windowStart(period: LimitPeriod, day: string): string {
  switch (period) {
    case 'EPOCH':
      return `${day}T00:00:00.000Z`;
    case 'MONTH':
      return `${day.slice(0, 7)}-01T00:00:00.000Z`;
    case 'LIFETIME':
      return '1970-01-01T00:00:00.000Z';
  }
}

export function periodLabel(period: LimitPeriod): string {
  switch (period) {
    case 'EPOCH':
      return 'epoch (UTC day)';
    case 'MONTH':
      return 'month (UTC)';
    case 'LIFETIME':
      return 'lifetime of the key';
  }
}
