import { Inject, Injectable } from '@nestjs/common';
import { BillingCurrency } from '@svc/contracts';
import { BILLING_DB, BillingDb } from '../database/billing-db';
import { big } from '../shared/nano';

export interface UsageRow {
  id: string;
  at: string;
  currency: BillingCurrency;
  amount: bigint;
  unitPriceUsd: bigint;
  sku: string;
  quantity: bigint;
  perSkuUnit: number;
  promptTokens: number | null;
  completionTokens: number | null;
  executionMs: number | null;
  requestId: string;
}

export interface PageQuery {
  accountId: string;
  currency: BillingCurrency | null;
  /** Inclusive lower bound (first page only). */
  start: string | null;
  after: { at: string; id: string } | null;
  end: string;
  limit: number;
}

/** Totals per group; `units` in display units (tokens, images, characters, seconds, credits). */
export interface Totals {
  usd: bigint;
  diem: bigint;
  units: number;
}

export interface Range {
  accountId: string;
  from: string;
  to: string;
}

// Seconds-priced audio is stored in milliseconds (per_sku_unit 1000); analytics shows seconds.
const UNITS = `sum(CASE WHEN unit_type = 'seconds' THEN quantity::numeric / per_sku_unit ELSE quantity END)::float8`;
const USD = `coalesce(sum(amount_nano) FILTER (WHERE currency = 'USD'), 0)`;
const DIEM = `coalesce(sum(amount_nano) FILTER (WHERE currency = 'DIEM'), 0)`;
const IN_RANGE = 'account_id = $1 AND created_at >= $2::timestamptz AND created_at < $3::timestamptz';

/** Reads of usage_entries and key_usage. Aggregation happens in Postgres (GROUP BY), never over rows in memory. */
@Injectable()
export class UsageRepository {
  constructor(@Inject(BILLING_DB) private readonly db: BillingDb) {}

  /**
   * Entries of a whole walk (its filters, from the start), counting at most `bound` + 1 index
   * entries: the number, or null when there are more than `bound`.
   */
  async countUpTo(q: Omit<PageQuery, 'after' | 'limit'>, bound: number): Promise<number | null> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         SELECT 1 FROM usage_entries
         WHERE account_id = $1 AND created_at < $2::timestamptz
           AND ($3::currency IS NULL OR currency = $3::currency)
           AND ($4::timestamptz IS NULL OR created_at >= $4::timestamptz)
         LIMIT $5) AS walk`,
      [q.accountId, q.end, q.currency, q.start, bound + 1],
    );
    const n = rows[0]?.n ?? 0;
    return n > bound ? null : n;
  }

  /** One page in (created_at, id) order, plus one row to tell whether another page follows. */
  async page(q: PageQuery): Promise<UsageRow[]> {
    const { rows } = await this.db.query<{
      id: string;
      at: string;
      currency: BillingCurrency;
      amount_nano: string;
      unit_price_usd_nano: string;
      sku: string;
      quantity: string;
      per_sku_unit: number;
      prompt_tokens: number | null;
      completion_tokens: number | null;
      execution_ms: number | null;
      request_id: string;
    }>(
      `SELECT id::text, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, currency, amount_nano, unit_price_usd_nano, sku,
              quantity, per_sku_unit, prompt_tokens, completion_tokens, execution_ms, request_id
       FROM usage_entries
       WHERE account_id = $1 AND created_at < $2::timestamptz
         AND ($3::currency IS NULL OR currency = $3::currency)
         AND ($4::timestamptz IS NULL OR created_at >= $4::timestamptz)
         AND ($5::timestamptz IS NULL OR (created_at, id) > ($5::timestamptz, $6::bigint))
       ORDER BY usage_entries.created_at, usage_entries.id
       LIMIT $7`,
      [q.accountId, q.end, q.currency, q.start, q.after?.at ?? null, q.after?.id ?? null, q.limit + 1],
    );
    return rows.map((r) => ({
      id: r.id,
      at: r.at,
      currency: r.currency,
      amount: big(r.amount_nano),
      unitPriceUsd: big(r.unit_price_usd_nano),
      sku: r.sku,
      quantity: big(r.quantity),
      perSkuUnit: r.per_sku_unit,
      promptTokens: r.prompt_tokens,
      completionTokens: r.completion_tokens,
      executionMs: r.execution_ms,
      requestId: r.request_id,
    }));
  }

  async byDate(range: Range): Promise<Array<{ day: string } & Totals>> {
    const { rows } = await this.db.query<{ day: string; usd: string; diem: string; units: number }>(
      `SELECT (created_at AT TIME ZONE 'UTC')::date::text AS day, ${USD} AS usd, ${DIEM} AS diem, ${UNITS} AS units
       FROM usage_entries WHERE ${IN_RANGE} GROUP BY 1`,
      [range.accountId, range.from, range.to],
    );
    return rows.map((r) => ({ day: r.day, usd: big(r.usd), diem: big(r.diem), units: r.units }));
  }

  async byModelLine(range: Range): Promise<Array<{ modelName: string; modelType: string; unitType: string; lineType: string } & Totals>> {
    const { rows } = await this.db.query<{
      model_name: string;
      model_type: string;
      unit_type: string;
      line_type: string;
      usd: string;
      diem: string;
      units: number;
    }>(
      `SELECT model_name, model_type, unit_type, line_type, ${USD} AS usd, ${DIEM} AS diem, ${UNITS} AS units
       FROM usage_entries WHERE ${IN_RANGE} GROUP BY 1, 2, 3, 4`,
      [range.accountId, range.from, range.to],
    );
    return rows.map((r) => ({
      modelName: r.model_name,
      modelType: r.model_type,
      unitType: r.unit_type,
      lineType: r.line_type,
      usd: big(r.usd),
      diem: big(r.diem),
      units: r.units,
    }));
  }

  async byKey(range: Range): Promise<Array<{ apiKeyId: string | null } & Totals>> {
    const { rows } = await this.db.query<{ api_key_id: string | null; usd: string; diem: string; units: number }>(
      `SELECT api_key_id, ${USD} AS usd, ${DIEM} AS diem, ${UNITS} AS units FROM usage_entries WHERE ${IN_RANGE} GROUP BY 1`,
      [range.accountId, range.from, range.to],
    );
    return rows.map((r) => ({ apiKeyId: r.api_key_id, usd: big(r.usd), diem: big(r.diem), units: r.units }));
  }

  /** Daily spend (USD + DIEM) of the given models or keys only (the top ones of the period). */
  async daily(range: Range, by: 'model_name' | 'api_key_id', values: string[]): Promise<Array<{ day: string; name: string; spend: bigint }>> {
    if (values.length === 0) return [];
    const { rows } = await this.db.query<{ day: string; name: string; spend: string }>(
      `SELECT (created_at AT TIME ZONE 'UTC')::date::text AS day, ${by}::text AS name, sum(amount_nano) AS spend
       FROM usage_entries WHERE ${IN_RANGE} AND ${by}::text = ANY($4::text[]) GROUP BY 1, 2`,
      [range.accountId, range.from, range.to, values],
    );
    return rows.map((r) => ({ day: r.day, name: r.name, spend: big(r.spend) }));
  }

  /** Charges of each key since its window start and since `weekStart`, from usage_entries (one grouped scan). */
  async keyUsage(
    accountId: string,
    keys: Array<{ id: string; since: string }>,
    weekStart: string,
  ): Promise<Array<{ keyId: string; current: Totals; week: Totals }>> {
    if (keys.length === 0) return [];
    const { rows } = await this.db.query<{ id: string; cur_usd: string; cur_diem: string; week_usd: string; week_diem: string }>(
      `SELECT k.id::text AS id,
              coalesce(sum(u.amount_nano) FILTER (WHERE u.currency = 'USD' AND u.created_at >= k.since), 0) AS cur_usd,
              coalesce(sum(u.amount_nano) FILTER (WHERE u.currency = 'DIEM' AND u.created_at >= k.since), 0) AS cur_diem,
              coalesce(sum(u.amount_nano) FILTER (WHERE u.currency = 'USD' AND u.created_at >= $4::timestamptz), 0) AS week_usd,
              coalesce(sum(u.amount_nano) FILTER (WHERE u.currency = 'DIEM' AND u.created_at >= $4::timestamptz), 0) AS week_diem
       FROM unnest($2::uuid[], $3::timestamptz[]) AS k(id, since)
       LEFT JOIN usage_entries u ON u.account_id = $1 AND u.api_key_id = k.id AND u.created_at >= least(k.since, $4::timestamptz)
       GROUP BY k.id`,
      [accountId, keys.map((k) => k.id), keys.map((k) => k.since), weekStart],
    );
    return rows.map((r) => ({
      keyId: r.id,
      current: { usd: big(r.cur_usd), diem: big(r.cur_diem), units: 0 },
      week: { usd: big(r.week_usd), diem: big(r.week_diem), units: 0 },
    }));
  }
}
