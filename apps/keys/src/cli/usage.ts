export const USAGE = `Usage: npm run svc -- <command>

  accounts create --name <name>
  accounts list
  keys create --account <accountId> --type INFERENCE|ADMIN [--description <text>] [--expires <YYYY-MM-DD|ISO date-time>]
  keys list --account <accountId>
  keys revoke <keyId>

Talks to the keys database directly (KEYS_DATABASE_URL), applying migrations first, and prints JSON.
A new key's secret is printed once; store it safely.`;

/** Bad command line, exit code 2; `showUsage` for unknown commands and flags. */
export class UsageError extends Error {
  override name = 'UsageError';

  constructor(
    message: string,
    readonly showUsage = false,
  ) {
    super(message);
  }
}
