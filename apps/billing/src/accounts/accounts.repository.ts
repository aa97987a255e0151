import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConsumptionOrder } from '@svc/contracts';
import { BILLING_DB, BillingDb } from '../database/billing-db';
import { big } from '../shared/nano';
import { AccountBalance, AdjustKind, AdjustStatus, LedgerRow, ReconcileMismatch } from './account.records';

interface BalanceRow {
  balance_usd_nano: string;
  held_usd_nano: string;
  diem_stake_nano: string;
  diem_used_nano: string;
  diem_held_nano: string;
  consumption_order: ConsumptionOrder;
  today: string;
  leased_usd_nano: string;
  leased_diem_nano: string;
}

const RECONCILED_FIELDS = ['balance_usd', 'held_usd', 'diem_stake', 'diem_used', 'diem_held'] as const;

@Injectable()
export class AccountsRepository {
  constructor(@Inject(BILLING_DB) private readonly db: BillingDb) {}

  /** Null for an account billing has never seen (no credit, no request yet). */
  async balance(accountId: string): Promise<AccountBalance | null> {
    const { rows } = await this.db.query<BalanceRow>({
      name: 'billing_balance',
      text: `SELECT balance_usd_nano, held_usd_nano, diem_stake_nano,
                    CASE WHEN diem_epoch = t.today THEN diem_used_nano ELSE 0 END AS diem_used_nano,
                    CASE WHEN diem_epoch = t.today THEN diem_held_nano ELSE 0 END AS diem_held_nano,
                    consumption_order, t.today::text AS today,
                    (SELECT coalesce(sum(l.held_nano) FILTER (WHERE l.currency = 'USD'), 0) FROM leases l WHERE l.account_id = $1 AND l.status <> 'CLOSED') AS leased_usd_nano,
                    (SELECT coalesce(sum(l.held_nano) FILTER (WHERE l.currency = 'DIEM' AND l.epoch = t.today), 0) FROM leases l WHERE l.account_id = $1 AND l.status <> 'CLOSED') AS leased_diem_nano
             FROM billing_accounts, (SELECT (now() AT TIME ZONE 'UTC')::date AS today) AS t
             WHERE id = $1`,
      values: [accountId],
    });
    const row = rows[0];
    if (!row) return null;
    return {
      balanceUsd: big(row.balance_usd_nano),
      heldUsd: big(row.held_usd_nano),
      diemStake: big(row.diem_stake_nano),
      diemUsed: big(row.diem_used_nano),
      diemHeld: big(row.diem_held_nano),
      leased: { usd: big(row.leased_usd_nano), diem: big(row.leased_diem_nano) },
      order: row.consumption_order,
      epoch: row.today,
    };
  }

  async adjust(
    accountId: string,
    kind: AdjustKind,
    amount: bigint,
    reason: string,
    idempotencyKey: string | null,
  ): Promise<{ status: AdjustStatus; balance: bigint; available: bigint }> {
    const { rows } = await this.db.query<{ o_status: AdjustStatus; o_balance: string; o_available: string }>(
      'SELECT * FROM billing_adjust($1, $2::ledger_kind, $3, $4, $5)',
      [accountId, kind, amount.toString(), reason, idempotencyKey],
    );
    return { status: rows[0].o_status, balance: big(rows[0].o_balance), available: big(rows[0].o_available) };
  }

  async setStake(accountId: string, stake: bigint, reason: string): Promise<{ previous: bigint; stake: bigint }> {
    const { rows } = await this.db.query<{ o_previous: string; o_stake: string }>('SELECT * FROM billing_set_stake($1, $2, $3)', [
      accountId,
      stake.toString(),
      reason,
    ]);
    return { previous: big(rows[0].o_previous), stake: big(rows[0].o_stake) };
  }

  async setConsumptionOrder(accountId: string, order: ConsumptionOrder): Promise<void> {
    await this.db.query(
      `INSERT INTO billing_accounts (id, diem_epoch, consumption_order) VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2::consumption_order)
       ON CONFLICT (id) DO UPDATE SET consumption_order = EXCLUDED.consumption_order, updated_at = now()`,
      [accountId, order],
    );
  }

  /** Newest first. */
  async ledger(accountId: string, limit: number): Promise<LedgerRow[]> {
    const { rows } = await this.db.query<{
      id: string;
      at: string;
      currency: string;
      kind: string;
      amount_nano: string;
      epoch: string | null;
      reservation_id: string | null;
      reason: string | null;
    }>(
      `SELECT id::text, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, currency, kind, amount_nano, epoch::text, reservation_id, reason
       FROM ledger_entries WHERE account_id = $1 ORDER BY ledger_entries.id DESC LIMIT $2`,
      [accountId, limit],
    );
    return rows.map((r) => ({
      id: r.id,
      at: r.at,
      currency: r.currency,
      kind: r.kind,
      amount: big(r.amount_nano),
      epoch: r.epoch,
      reservationId: r.reservation_id,
      reason: r.reason,
    }));
  }

  /**
   * Recomputes every cached balance from the ledger; returns what differs (nothing, normally), and
   * the holds still open more than a minute past their expiry (reservations, and credit leases
   * past their expiry plus `leaseGraceMs`): the sweeper should have finalized them.
   */
  async reconcile(accountId: string | null, leaseGraceMs = 0): Promise<{ accounts: number; mismatches: ReconcileMismatch[]; overdueHolds: number }> {
    const { rows } = await this.db.query<Record<string, string>>(
      `SELECT a.id,
              a.balance_usd_nano AS cached_balance_usd, l.balance_usd AS ledger_balance_usd,
              a.held_usd_nano AS cached_held_usd, l.held_usd AS ledger_held_usd,
              a.diem_stake_nano AS cached_diem_stake, l.diem_stake AS ledger_diem_stake,
              a.diem_used_nano AS cached_diem_used, l.diem_used AS ledger_diem_used,
              a.diem_held_nano AS cached_diem_held, l.diem_held AS ledger_diem_held
       FROM billing_accounts a
       CROSS JOIN LATERAL (
         SELECT coalesce(sum(e.amount_nano) FILTER (WHERE e.currency = 'USD' AND e.kind IN ('CREDIT', 'DEBIT', 'CHARGE', 'REFUND')), 0) AS balance_usd,
                coalesce(sum(e.amount_nano) FILTER (WHERE e.currency = 'USD' AND e.kind IN ('HOLD', 'RELEASE')), 0) AS held_usd,
                coalesce(sum(e.amount_nano) FILTER (WHERE e.kind = 'STAKE'), 0) AS diem_stake,
                -coalesce(sum(e.amount_nano) FILTER (WHERE e.currency = 'DIEM' AND e.kind IN ('CHARGE', 'REFUND') AND e.epoch = a.diem_epoch), 0) AS diem_used,
                coalesce(sum(e.amount_nano) FILTER (WHERE e.currency = 'DIEM' AND e.kind IN ('HOLD', 'RELEASE') AND e.epoch = a.diem_epoch), 0) AS diem_held
         FROM ledger_entries e WHERE e.account_id = a.id) AS l
       WHERE $1::uuid IS NULL OR a.id = $1::uuid`,
      [accountId],
    );
    const mismatches: ReconcileMismatch[] = [];
    for (const row of rows) {
      for (const field of RECONCILED_FIELDS) {
        const cached = big(row[`cached_${field}`]);
        const ledger = big(row[`ledger_${field}`]);
        if (cached !== ledger) mismatches.push({ accountId: row.id, field, cached, ledger });
      }
    }
    const overdue = await this.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM reservations WHERE status = 'HELD' AND expires_at < now() - interval '1 minute' AND ($1::uuid IS NULL OR account_id = $1::uuid))::int
            + (SELECT count(*) FROM leases WHERE status <> 'CLOSED' AND expires_at < now() - interval '1 minute' - $2 * interval '1 millisecond' AND ($1::uuid IS NULL OR account_id = $1::uuid))::int AS n`,
      [accountId, leaseGraceMs],
    );
    return { accounts: rows.length, mismatches, overdueHolds: overdue.rows[0].n };
  }

  /** A secret shared by every replica, created by whichever asks first. */
  async secret(name: string): Promise<Buffer> {
    await this.db.query('INSERT INTO billing_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, randomBytes(32)]);
    const { rows } = await this.db.query<{ value: Buffer }>('SELECT value FROM billing_secrets WHERE name = $1', [name]);
    return rows[0].value;
  }
}
