export const USAGE = `Usage: npm run svc -- <command>

  accounts create --name <name>
  accounts list
  keys create --account <accountId> --type INFERENCE|ADMIN [--description <text>] [--expires <YYYY-MM-DD|ISO date-time>]
  keys list --account <accountId>
  keys revoke <keyId>
  limits show --account <accountId>
  limits tier --account <accountId> --tier paid|partner
  limits set (--account <accountId> | --key <keyId>) [--target <target>] [--rpm <n|inherit>] [--tpm <n|inherit>] [--rpd <n|inherit>]
  limits clear (--account <accountId> | --key <keyId>) [--target <target>]

Rate-limit targets: "*" (every model, the default), text:XS, text:S, text:M, text:L, image, audio,
embedding, video-queue, video-retrieve, augment, crypto-rpc, or model:<model id>; the most specific one wins per field.
Account limits replace the tier's defaults; a key's limits apply in addition (so only lower them).

Talks to the keys database directly (KEYS_DATABASE_URL), applying migrations first, and prints JSON.
A new key's secret is printed once; store it safely.`;

export { UsageError } from '@svc/cli';
