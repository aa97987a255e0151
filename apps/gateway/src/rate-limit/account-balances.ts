import { CallerContext } from '@svc/contracts';

/** Balances shown by GET /api_keys/rate_limits; a field is left out when its value is unknown. */
export interface Balances {
  USD?: number;
  DIEM?: number;
}

/**
 * Where GET /api_keys/rate_limits gets balances from. Billing provides it (a provider for this
 * token in a global module); without one the response carries `balances: {}`.
 */
export interface AccountBalances {
  balances(caller: CallerContext): Promise<Balances>;
}

export const ACCOUNT_BALANCES = Symbol('ACCOUNT_BALANCES');
