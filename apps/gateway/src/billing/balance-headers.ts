import { AuthenticatedKey, NanoAmounts } from '@svc/contracts';
import { HEADER } from '@svc/headers';
import { formatAmount } from '@svc/pricing';

/**
 * `x-svc-balance-usd` / `x-svc-balance-diem`: available balances before the request, exact decimal
 * text; for a wallet (Sign-In-With-X) caller also `X-Balance-Remaining`, the same USD amount.
 */
export function balanceHeaders(before: NanoAmounts, key?: Pick<AuthenticatedKey, 'wallet'>): Record<string, string> {
  const usd = formatAmount(BigInt(before.usd));
  const headers: Record<string, string> = { [HEADER.balanceUsd]: usd, [HEADER.balanceDiem]: formatAmount(BigInt(before.diem)) };
  if (key?.wallet) headers[HEADER.balanceRemaining] = usd;
  return headers;
}
