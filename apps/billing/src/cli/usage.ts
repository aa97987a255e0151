export const USAGE = `Usage: npm run billing -- <command>

  credit      --account <accountId> --usd <amount> --reason <text> [--idempotency-key <key>]
  debit       --account <accountId> --usd <amount> --reason <text>
  stake       --account <accountId> --diem <amount> [--reason <text>]
  consumption --account <accountId> --order DIEM_FIRST|USD_FIRST|USD_ONLY|DIEM_ONLY
  balance     --account <accountId>
  ledger      --account <accountId> [--limit <n, default 50>]
  reconcile   [--account <accountId>]
  sweep

Talks to the billing database directly (BILLING_DATABASE_URL), applying migrations first, and
prints JSON. Amounts are decimal (up to 9 decimals), e.g. --usd 25 or --usd 0.5. Account ids are
the keys service's (npm run svc -- accounts list). A debit never takes more than is available.`;

export { UsageError } from '@svc/cli';
