import { Fragment } from 'react';
import { LimitPeriod } from '../../api/types';

export interface KeyFieldValues {
  description: string;
  /** YYYY-MM-DD or '' for none. */
  expiresAt: string;
  limitUsd: string;
  limitDiem: string;
  limitPeriod: LimitPeriod;
}

export const PERIODS: Array<{ value: LimitPeriod; label: string }> = [
  { value: 'EPOCH', label: 'Epoch (a UTC day)' },
  { value: 'MONTH', label: 'Month (UTC)' },
  { value: 'LIFETIME', label: 'Lifetime of the key' },
];

/** The API's body fields for these values: a blank limit is "no limit" (null). */
export function toBody(v: KeyFieldValues) {
  const limit = (s: string) => (s.trim() === '' ? null : Number(s));
  return {
    description: v.description,
    ...(v.expiresAt ? { expiresAt: new Date(`${v.expiresAt}T23:59:59Z`).toISOString() } : {}),
    consumptionLimit: { usd: limit(v.limitUsd), diem: limit(v.limitDiem) },
    limitPeriod: v.limitPeriod,
  };
}

interface Props {
  idPrefix: string;
  values: KeyFieldValues;
  onChange: (values: KeyFieldValues) => void;
}

/** Description, expiry, consumption limits and their period: shared by create and edit. */
export function KeyFields({ idPrefix, values, onChange }: Props) {
  const set = (patch: Partial<KeyFieldValues>) => onChange({ ...values, ...patch });
  const id = (name: string) => `${idPrefix}-${name}`;
  return (
    <div className="fields">
      <label htmlFor={id('description')}>Description</label>
      <input id={id('description')} required maxLength={200} value={values.description} onChange={(e) => set({ description: e.target.value })} />
      <label htmlFor={id('expires')}>Expires on (optional)</label>
      <input id={id('expires')} type="date" value={values.expiresAt} onChange={(e) => set({ expiresAt: e.target.value })} />
      {(['usd', 'diem'] as const).map((currency) => {
        const field = currency === 'usd' ? 'limitUsd' : 'limitDiem';
        return (
          <Fragment key={currency}>
            <label htmlFor={id(`limit-${currency}`)}>{currency.toUpperCase()} limit per period (blank: none)</label>
            <input
              id={id(`limit-${currency}`)}
              type="number"
              min="0"
              step="any"
              inputMode="decimal"
              value={values[field]}
              onChange={(e) => set({ [field]: e.target.value })}
            />
          </Fragment>
        );
      })}
      <label htmlFor={id('period')}>Limit period</label>
      <select id={id('period')} value={values.limitPeriod} onChange={(e) => set({ limitPeriod: e.target.value as LimitPeriod })}>
        {PERIODS.map((p) => (
          <option key={p.value} value={p.value}>
            {p.label}
          </option>
        ))}
      </select>
    </div>
  );
}
