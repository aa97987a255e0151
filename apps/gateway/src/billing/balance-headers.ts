import { NanoAmounts } from '@svc/contracts';
import { HEADER } from '@svc/headers';
import { formatAmount } from '@svc/pricing';

/** `x-svc-balance-usd` / `x-svc-balance-diem`: available balances before the request, exact decimal text. */
export function balanceHeaders(before: NanoAmounts): Record<string, string> {
  return { [HEADER.balanceUsd]: formatAmount(BigInt(before.usd)), [HEADER.balanceDiem]: formatAmount(BigInt(before.diem)) };
}
