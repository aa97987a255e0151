export const BILLING_CURRENCIES = ['USD', 'DIEM'] as const;
export type BillingCurrency = (typeof BILLING_CURRENCIES)[number];

/** Which balance pays first. DIEM (the daily staking allocation) first unless the account says otherwise. */
export const CONSUMPTION_ORDERS = ['DIEM_FIRST', 'USD_FIRST', 'USD_ONLY', 'DIEM_ONLY'] as const;
export type ConsumptionOrder = (typeof CONSUMPTION_ORDERS)[number];

/**
 * Money on the wire: an integer count of nano-units (1e-9 USD or DIEM) as a decimal string, so
 * no amount ever passes through a float. `@svc/pricing` parses and formats them.
 */
export type Nano = string;

export interface NanoAmounts {
  usd: Nano;
  diem: Nano;
}
