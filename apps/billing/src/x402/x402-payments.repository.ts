import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  X402ClaimReply,
  X402ClaimRequest,
  X402CreditReply,
  X402HistoryReply,
  X402HistoryRequest,
  X402PaymentStatus,
  X402UnfinishedReply,
  X402UnfinishedRequest,
} from '@svc/contracts';
import { BILLING_DB, BillingDb } from '../database/billing-db';

/** x402 payments and the ledger read as wallet transactions: the billing_x402_* rules of the 20261125130000 migration. */
@Injectable()
export class X402PaymentsRepository {
  constructor(@Inject(BILLING_DB) private readonly db: BillingDb) {}

  async claim(r: X402ClaimRequest): Promise<X402ClaimReply> {
    const { rows } = await this.db.query<{ o_id: string; o_status: X402PaymentStatus; o_claimed: boolean }>(
      'SELECT * FROM billing_x402_claim($1, $2, $3, $4, $5, $6, $7)',
      [randomUUID(), r.reference, r.accountId, r.walletAddress, r.network, r.amountNano, JSON.stringify(r.payment ?? null)],
    );
    return { paymentId: rows[0].o_id, status: rows[0].o_status, claimed: rows[0].o_claimed };
  }

  async settled(reference: string, transaction: string): Promise<X402PaymentStatus> {
    const { rows } = await this.db.query<{ o_status: X402PaymentStatus }>('SELECT * FROM billing_x402_settled($1, $2)', [reference, transaction]);
    return rows[0].o_status;
  }

  async failed(reference: string, reason: string): Promise<X402PaymentStatus> {
    const { rows } = await this.db.query<{ o_status: X402PaymentStatus }>('SELECT * FROM billing_x402_failed($1, $2)', [reference, reason]);
    return rows[0].o_status;
  }

  async credit(reference: string): Promise<X402CreditReply> {
    const { rows } = await this.db.query<{
      o_status: X402CreditReply['status'];
      o_id: string;
      o_account: string;
      o_wallet: string;
      o_amount: string;
      o_transaction: string | null;
      o_balance: string;
    }>('SELECT * FROM billing_x402_credit($1)', [reference]);
    const row = rows[0];
    return {
      status: row.o_status,
      paymentId: row.o_id,
      accountId: row.o_account,
      walletAddress: row.o_wallet,
      amountNano: row.o_amount,
      transaction: row.o_transaction,
      balanceNano: row.o_balance,
    };
  }

  async unfinished(r: X402UnfinishedRequest): Promise<X402UnfinishedReply> {
    const { rows } = await this.db.query<{ reference: string; status: 'PENDING' | 'SETTLED'; payment: unknown }>(
      `SELECT reference, status, payment FROM x402_payments
       WHERE status IN ('PENDING', 'SETTLED') AND updated_at < now() - $1 * interval '1 millisecond'
       ORDER BY updated_at LIMIT $2`,
      [r.olderThanMs, r.limit],
    );
    return { payments: rows };
  }

  /** USD credits, debits, charges and refunds, newest first, each with the settled balance after it. */
  async history(r: X402HistoryRequest): Promise<X402HistoryReply> {
    const { rows } = await this.db.query<{
      id: string;
      kind: string;
      amount_nano: string;
      balance_after: string;
      at: string;
      request_id: string | null;
      model_id: string | null;
    }>(
      `SELECT id, kind, amount_nano, balance_after, at, request_id, model_id FROM (
         SELECT e.id, CASE WHEN e.idempotency_key LIKE 'x402:%' THEN 'TOP_UP' ELSE e.kind::text END AS kind, e.amount_nano,
                sum(e.amount_nano) OVER (ORDER BY e.id) AS balance_after,
                to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, r.request_id, r.model_id
         FROM ledger_entries e LEFT JOIN reservations r ON r.id = e.reservation_id
         WHERE e.account_id = $1 AND e.currency = 'USD' AND e.kind IN ('CREDIT', 'DEBIT', 'CHARGE', 'REFUND')) t
       ORDER BY t.id DESC LIMIT $2 OFFSET $3`,
      [r.accountId, r.limit + 1, r.offset],
    );
    const balance = await this.db.query<{ balance_usd_nano: string }>('SELECT balance_usd_nano FROM billing_accounts WHERE id = $1', [r.accountId]);
    return {
      entries: rows.slice(0, r.limit).map((e) => ({
        id: `ledger_${e.id}`,
        amountNano: e.amount_nano,
        balanceAfterNano: e.balance_after,
        kind: e.kind,
        createdAt: e.at,
        requestId: e.request_id,
        modelId: e.model_id,
      })),
      hasMore: rows.length > r.limit,
      balanceNano: balance.rows[0]?.balance_usd_nano ?? '0',
    };
  }
}
