import { createHmac, timingSafeEqual } from 'node:crypto';
import { BillingCurrency } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';

/** Where a usage-history walk stands and the filters it carries (sent back as `cursor`). */
export interface CursorState {
  accountId: string;
  /** The last entry of the previous page. */
  after: { at: string; id: string };
  currency: BillingCurrency | null;
  /** Exclusive upper bound, fixed at the first page so pages stay stable while usage is recorded. */
  end: string;
  pageSize: number;
  /** The page number this cursor fetches. */
  page: number;
  expiresAt: number;
  /** Entries in the whole walk, counted at its first page; null past the count's bound. */
  total: number | null;
}

const VERSION = 1;
const MAC_BYTES = 16;

/** base64url(MAC || JSON): opaque, only [A-Za-z0-9_-], tamper-evident (HMAC-SHA256 with a key shared by replicas). */
export function encodeCursor(state: CursorState, secret: Buffer): string {
  const payload = Buffer.from(
    JSON.stringify([
      VERSION,
      state.accountId,
      state.after.at,
      state.after.id,
      state.currency,
      state.end,
      state.pageSize,
      state.page,
      state.expiresAt,
      state.total,
    ]),
  );
  return Buffer.concat([mac(secret, payload), payload]).toString('base64url');
}

/** The walk a cursor continues; 400 when it was tampered with, expired or issued to another account. */
export function decodeCursor(token: string, secret: Buffer, accountId: string, now = Date.now()): CursorState {
  const bytes = Buffer.from(token, 'base64url');
  const payload = bytes.subarray(MAC_BYTES);
  const expected = mac(secret, payload);
  const given = bytes.subarray(0, MAC_BYTES);
  if (given.length !== MAC_BYTES || !timingSafeEqual(given, expected)) throw invalid('it was not issued by this service or was modified');
  let fields: unknown[];
  try {
    fields = JSON.parse(payload.toString('utf8')) as unknown[];
  } catch {
    throw invalid('it is malformed');
  }
  const [version, owner, at, id, currency, end, pageSize, page, expiresAt, total] = fields as [
    number,
    string,
    string,
    string,
    BillingCurrency | null,
    string,
    number,
    number,
    number,
    number | null | undefined,
  ];
  if (version !== VERSION) throw invalid('it comes from another version of the API');
  if (owner !== accountId) throw invalid('it belongs to another account');
  if (expiresAt < now) throw invalid('it has expired');
  // Cursors issued before totals existed carry none.
  return { accountId: owner, after: { at, id }, currency, end, pageSize, page, expiresAt, total: Number.isSafeInteger(total) ? (total as number) : null };
}

function mac(secret: Buffer, payload: Buffer): Buffer {
  return createHmac('sha256', secret).update(payload).digest().subarray(0, MAC_BYTES);
}

function invalid(why: string): DomainError {
  return new DomainError(ErrorCode.Validation, `Invalid cursor: ${why}. Start the walk again from the first page (without cursor).`, {
    _errors: [],
    cursor: { _errors: [why] },
  });
}
