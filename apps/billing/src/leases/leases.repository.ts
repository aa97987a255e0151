import { Inject, Injectable } from '@nestjs/common';
import { BILLING_DB, BillingDb } from '../database/billing-db';
import { big } from '../shared/nano';
import { ExpiredLease, LeaseCloseStatus, LeasedItem, LeasedResult, LeaseOpenParams, LeaseOpenResult } from './lease.records';

// Named statements: each pooled connection parses and plans them once.
const OPEN = 'SELECT * FROM billing_lease_open($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)';
const CLOSE = 'SELECT * FROM billing_lease_close($1, $2, $3)';
const SETTLE_LEASED = 'SELECT * FROM billing_settle_leased($1::jsonb, $2)';

interface OpenRow {
  o_outcome: LeaseOpenResult['outcome'];
  o_currency: LeaseOpenResult['currency'];
  o_granted: string | null;
  o_usd_available: string;
  o_diem_available: string;
  o_admit_until: Date | null;
  o_expires_at: Date | null;
  o_replay: boolean;
}

interface SettledRow {
  o_index: number;
  o_id: string;
  o_status: LeasedResult['status'];
  o_currency: LeasedResult['currency'];
  o_charged: string;
  o_over_hold: string;
}

/** Credit leases, each operation one SQL function of the credit_leases migration. */
@Injectable()
export class LeasesRepository {
  constructor(@Inject(BILLING_DB) private readonly db: BillingDb) {}

  async open(p: LeaseOpenParams): Promise<LeaseOpenResult> {
    const { rows } = await this.db.query<OpenRow>({
      name: 'billing_lease_open',
      text: OPEN,
      values: [
        p.id,
        p.accountId,
        p.apiKeyId,
        p.limits.usd?.toString() ?? null,
        p.limits.diem?.toString() ?? null,
        p.limits.period,
        p.unit.usd.toString(),
        p.unit.diem.toString(),
        p.minUnits,
        p.maxUnits,
        p.fraction,
        p.admitMs,
        p.ttlMs,
      ],
    });
    const row = rows[0];
    return {
      outcome: row.o_outcome,
      currency: row.o_currency,
      granted: big(row.o_granted),
      available: { usd: big(row.o_usd_available), diem: big(row.o_diem_available) },
      admitUntil: row.o_admit_until,
      expiresAt: row.o_expires_at,
      replay: row.o_replay,
    };
  }

  async close(id: string, admitted: number, admittedNano: bigint): Promise<{ status: LeaseCloseStatus; released: bigint }> {
    const { rows } = await this.db.query<{ o_status: LeaseCloseStatus; o_released: string }>({
      name: 'billing_lease_close',
      text: CLOSE,
      values: [id, admitted, admittedNano.toString()],
    });
    return { status: rows[0].o_status, released: big(rows[0].o_released) };
  }

  /**
   * One transaction for the whole batch (billing_settle_leased). It commits synchronously, so a
   * charge is durable once this resolves. Results come back in the items' order.
   */
  async settleLeased(items: LeasedItem[], graceMs: number): Promise<LeasedResult[]> {
    const { rows } = await this.db.query<SettledRow>({
      name: 'billing_settle_leased',
      text: SETTLE_LEASED,
      values: [JSON.stringify(items.map(toSqlItem)), graceMs],
    });
    const results = new Array<LeasedResult>(items.length);
    for (const row of rows) {
      results[row.o_index] = { id: row.o_id, status: row.o_status, currency: row.o_currency, charged: big(row.o_charged), overHold: big(row.o_over_hold) };
    }
    return results;
  }

  /**
   * Claims up to `limit` leases whose expiry plus `graceMs` has passed and that still hold credit,
   * for this sweeper: SKIP LOCKED and a claim of `claimMs` (swept_at), as for reservations.
   */
  async claimExpired(limit: number, graceMs: number, claimMs: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `UPDATE leases SET swept_at = now()
       WHERE id IN (
         SELECT id FROM leases
         WHERE status IN ('OPEN', 'CLOSING') AND expires_at <= now() - $2 * interval '1 millisecond'
           AND (swept_at IS NULL OR swept_at <= now() - $3 * interval '1 millisecond')
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [limit, graceMs, claimMs],
    );
    return rows.map((r) => r.id);
  }

  /** Returns what an expired lease still holds and closes it (billing_lease_expire). */
  async expire(id: string, graceMs: number): Promise<ExpiredLease> {
    const { rows } = await this.db.query<{ o_status: ExpiredLease['status']; o_released: string; o_settled: number | null; o_admitted: number | null }>(
      'SELECT * FROM billing_lease_expire($1, $2)',
      [id, graceMs],
    );
    const row = rows[0];
    return { status: row.o_status, released: big(row.o_released), settled: row.o_settled ?? 0, admitted: row.o_admitted };
  }
}

/** The item as billing_settle_leased reads it (jsonb_to_recordset's column names). */
function toSqlItem(i: LeasedItem) {
  return {
    id: i.id,
    lease_id: i.leaseId,
    api_key_id: i.apiKeyId,
    currency: i.currency,
    request_id: i.requestId,
    model_id: i.model.id,
    model_name: i.model.name,
    model_type: i.model.type,
    pricing: i.pricing,
    worst_case: i.worstCase,
    held: i.held.toString(),
    charge: i.charge.toString(),
    lines: i.lines,
    prompt_tokens: i.promptTokens,
    completion_tokens: i.completionTokens,
    execution_ms: i.executionMs,
    source: i.source,
    outcome: i.outcome,
    fallback: i.fallback,
  };
}
