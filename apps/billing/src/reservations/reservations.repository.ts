import { Inject, Injectable } from '@nestjs/common';
import { SettleStatus } from '@svc/contracts';
import { BILLING_DB, BillingDb } from '../database/billing-db';
import { big } from '../shared/nano';
import { MarginState } from './may-fit-later';
import { GatewayFallback, OpenReservation, ReserveParams, ReserveResult, SettleParams, SettleResult } from './reservation.records';

// Named statements: each pooled connection parses and plans them once.
const RESERVE = 'SELECT * FROM billing_reserve($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14::jsonb, $15, $16)';
const SETTLE = 'SELECT * FROM billing_settle($1, $2::settle_source, $3, $4, $5::jsonb, $6, $7, $8)';
const FLUSH_BARRIER = 'SELECT txid_current()';
// The account's credit and the key's window as they stand (no lock: a hint for waiting, not a decision).
const MARGIN = `SELECT a.consumption_order, a.balance_usd_nano, a.held_usd_nano, a.diem_stake_nano,
  CASE WHEN a.diem_epoch = (now() AT TIME ZONE 'UTC')::date THEN a.diem_used_nano ELSE 0 END AS diem_used_nano,
  CASE WHEN a.diem_epoch = (now() AT TIME ZONE 'UTC')::date THEN a.diem_held_nano ELSE 0 END AS diem_held_nano,
  coalesce(k.used_usd_nano, 0) AS key_used_usd, coalesce(k.used_diem_nano, 0) AS key_used_diem,
  coalesce(k.held_usd_nano, 0) AS key_held_usd, coalesce(k.held_diem_nano, 0) AS key_held_diem
FROM billing_accounts a
LEFT JOIN key_usage k ON k.api_key_id = $2 AND k.period = billing_period_key($3, (now() AT TIME ZONE 'UTC')::date)
WHERE a.id = $1`;
const FIND = 'SELECT id, status, currency, charged_nano, model_id, pricing, worst_case, fallback FROM reservations WHERE id = $1';

interface ReserveRow {
  o_outcome: ReserveResult['outcome'];
  o_currency: ReserveResult['currency'];
  o_held: string | null;
  o_usd_available: string | null;
  o_diem_available: string | null;
  o_key_used_usd: string | null;
  o_key_used_diem: string | null;
  o_order: ReserveResult['order'];
  o_diem_stake: string;
}

interface MarginRow {
  consumption_order: MarginState['order'];
  balance_usd_nano: string;
  held_usd_nano: string;
  diem_stake_nano: string;
  diem_used_nano: string;
  diem_held_nano: string;
  key_used_usd: string;
  key_used_diem: string;
  key_held_usd: string;
  key_held_diem: string;
}

interface ReservationRow {
  id: string;
  status: OpenReservation['status'];
  currency: OpenReservation['currency'];
  charged_nano: string;
  model_id: string;
  pricing: unknown;
  worst_case: OpenReservation['worstCase'];
  fallback: GatewayFallback | null;
}

/** Reservations and their settlement, each one SQL round trip (see the billing migration's functions). */
@Injectable()
export class ReservationsRepository {
  constructor(@Inject(BILLING_DB) private readonly db: BillingDb) {}

  async reserve(p: ReserveParams): Promise<ReserveResult> {
    const { rows } = await this.db.query<ReserveRow>({
      name: 'billing_reserve',
      text: RESERVE,
      values: [
        p.id,
        p.accountId,
        p.apiKeyId,
        p.requestId,
        p.cost.usd.toString(),
        p.cost.diem.toString(),
        p.limits.usd?.toString() ?? null,
        p.limits.diem?.toString() ?? null,
        p.limits.period,
        p.model.id,
        p.model.name,
        p.model.type,
        p.pricingJson,
        JSON.stringify(p.worstCase),
        p.ttlMs,
        p.durable,
      ],
    });
    const row = rows[0];
    return {
      outcome: row.o_outcome,
      currency: row.o_currency,
      held: big(row.o_held),
      available: { usd: big(row.o_usd_available), diem: big(row.o_diem_available) },
      keyUsed: { usd: big(row.o_key_used_usd), diem: big(row.o_key_used_diem) },
      order: row.o_order,
      diemStake: big(row.o_diem_stake),
    };
  }

  /** The account's credit and the key's window (its limits' period) as they stand; null for an account billing has never seen. */
  async marginState(accountId: string, apiKeyId: string | null, period: string): Promise<MarginState | null> {
    const { rows } = await this.db.query<MarginRow>({ name: 'billing_margin_state', text: MARGIN, values: [accountId, apiKeyId, period] });
    const row = rows[0];
    if (!row) return null;
    return {
      order: row.consumption_order,
      balanceUsd: big(row.balance_usd_nano),
      heldUsd: big(row.held_usd_nano),
      diemStake: big(row.diem_stake_nano),
      diemUsed: big(row.diem_used_nano),
      diemHeld: big(row.diem_held_nano),
      key: { usedUsd: big(row.key_used_usd), usedDiem: big(row.key_used_diem), heldUsd: big(row.key_held_usd), heldDiem: big(row.key_held_diem) },
    };
  }

  async find(id: string): Promise<OpenReservation | null> {
    const { rows } = await this.db.query<ReservationRow>({ name: 'billing_find_reservation', text: FIND, values: [id] });
    return rows[0] ? toOpen(rows[0]) : null;
  }

  /**
   * billing_settle commits without waiting for the disk, so it never holds the account's row lock
   * across an fsync. A charge is then made durable before it is acknowledged: a transaction that
   * takes a transaction id commits synchronously, and its commit waits until the WAL is flushed
   * up to its own record, which lies after the settlement's. A crash in between loses an
   * unacknowledged settlement only; the service retries it (idempotent).
   */
  async settle(p: SettleParams): Promise<SettleResult> {
    const { rows } = await this.db.query<{ o_status: SettleStatus; o_currency: SettleResult['currency']; o_charged: string; o_over_hold: string }>({
      name: 'billing_settle',
      text: SETTLE,
      values: [p.id, p.source, p.outcome, p.charge.toString(), JSON.stringify(p.lines), p.promptTokens, p.completionTokens, p.executionMs],
    });
    const result = { status: rows[0].o_status, currency: rows[0].o_currency, charged: big(rows[0].o_charged), overHold: big(rows[0].o_over_hold) };
    if (result.status === 'settled' || result.status === 'refunded') await this.db.query({ name: 'billing_flush_barrier', text: FLUSH_BARRIER });
    return result;
  }

  /** Keeps the gateway's count while the hold is open and brings its expiry within `graceMs`. False when already final. */
  async recordFallback(id: string, fallback: GatewayFallback, graceMs: number): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE reservations SET fallback = $2::jsonb, expires_at = least(expires_at, now() + $3 * interval '1 millisecond')
       WHERE id = $1 AND status = 'HELD'`,
      [id, JSON.stringify(fallback), graceMs],
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * Claims up to `limit` expired holds for this sweeper. SKIP LOCKED lets several replicas sweep
   * at once without waiting on each other; `swept_at` keeps a claim for `leaseMs` so rows that
   * another replica is finalizing are not taken twice (finalizing is idempotent anyway).
   */
  async claimExpired(limit: number, leaseMs: number): Promise<OpenReservation[]> {
    const { rows } = await this.db.query<ReservationRow>(
      `UPDATE reservations SET swept_at = now()
       WHERE id IN (
         SELECT id FROM reservations
         WHERE status = 'HELD' AND expires_at <= now() AND (swept_at IS NULL OR swept_at <= now() - $2 * interval '1 millisecond')
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING id, status, currency, charged_nano, model_id, pricing, worst_case, fallback`,
      [limit, leaseMs],
    );
    return rows.map(toOpen);
  }

  /** The sweeper's backlog (a metric, read at scrape): holds past their expiry still HELD, and the oldest one's age. */
  async expiredBacklog(): Promise<{ holds: number; oldestSeconds: number }> {
    const { rows } = await this.db.query<{ holds: string; oldest: number | null }>(
      `SELECT count(*) AS holds, extract(epoch FROM now() - min(expires_at))::float8 AS oldest
       FROM reservations WHERE status = 'HELD' AND expires_at <= now()`,
    );
    return { holds: Number(rows[0]?.holds ?? 0), oldestSeconds: rows[0]?.oldest ?? 0 };
  }
}

function toOpen(row: ReservationRow): OpenReservation {
  return {
    id: row.id,
    status: row.status,
    currency: row.currency,
    chargedNano: big(row.charged_nano),
    modelId: row.model_id,
    pricing: row.pricing,
    worstCase: row.worst_case,
    fallback: row.fallback,
  };
}
