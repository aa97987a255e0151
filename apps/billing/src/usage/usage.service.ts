import { Inject, Injectable } from '@nestjs/common';
import { KeyUsageReply, UsageAnalyticsReply, UsageHistoryEntry, UsageHistoryReply } from '@svc/contracts';
import { toNumber } from '@svc/pricing';
import { AccountsRepository } from '../accounts/accounts.repository';
import { BILLING_CONFIG, BillingConfig } from '../config';
import { addDays, utcDay, windowStart } from '../shared/periods';
import { dailySeries, dailyTotals, modelTotals, topBySpend } from './analytics';
import { CursorState, decodeCursor, encodeCursor } from './cursor';
import { UsageRepository, UsageRow } from './usage.repository';
import { KeyUsageInput, UsageAnalyticsInput, UsageHistoryInput } from './usage.schemas';

const DEFAULT_PAGE_SIZE = 1000;
/** A walk's total is counted up to this many entries (measured: docs/billing.md, "HTTP endpoints"); past it, no total. */
export const USAGE_TOTAL_BOUND = 100_000;
const DEFAULT_LOOKBACK_DAYS = 7;
const CURSOR_SECRET = 'usage-history-cursor';
const EPOCH_START = '1970-01-01T00:00:00.000Z';

@Injectable()
export class UsageService {
  private secret: Promise<Buffer> | null = null;

  constructor(
    private readonly usage: UsageRepository,
    private readonly accounts: AccountsRepository,
    @Inject(BILLING_CONFIG) private readonly config: Pick<BillingConfig, 'BILLING_CURSOR_TTL_MS'>,
  ) {}

  /** Ascending (timestamp, id) keyset walk; the first page fixes the end, so pages stay stable. */
  async history(input: UsageHistoryInput, now = Date.now()): Promise<UsageHistoryReply> {
    const secret = await this.cursorSecret();
    const walk: Omit<CursorState, 'expiresAt'> & { start: string | null } = input.cursor
      ? { ...decodeCursor(input.cursor, secret, input.accountId, now), start: null }
      : {
          accountId: input.accountId,
          after: { at: EPOCH_START, id: '0' },
          currency: input.currency ?? null,
          start: input.startTimestamp ?? null,
          end: input.endTimestamp ?? new Date(now).toISOString(),
          pageSize: input.pageSize ?? DEFAULT_PAGE_SIZE,
          page: 1,
          total: null,
        };
    const range = { accountId: walk.accountId, currency: walk.currency, start: walk.start, end: walk.end };
    // The total is counted once, with the first page, and carried by the cursor: the walk's end is fixed.
    const [rows, total] = await Promise.all([
      this.usage.page({ ...range, after: input.cursor ? walk.after : null, limit: walk.pageSize }),
      input.cursor ? walk.total : this.usage.countUpTo(range, USAGE_TOTAL_BOUND),
    ]);
    const data = rows.slice(0, walk.pageSize);
    const last = data.at(-1);
    const nextCursor =
      rows.length > walk.pageSize && last
        ? encodeCursor({ ...walk, total, after: { at: last.at, id: last.id }, page: walk.page + 1, expiresAt: now + this.config.BILLING_CURSOR_TTL_MS }, secret)
        : null;
    return { data: data.map(toEntry), nextCursor, page: walk.page, pageSize: walk.pageSize, total };
  }

  async analytics(input: UsageAnalyticsInput, now = new Date()): Promise<UsageAnalyticsReply> {
    const lastDay = input.endDate ?? utcDay(now);
    const firstDay = input.startDate ?? addDays(lastDay, -((input.lookbackDays ?? DEFAULT_LOOKBACK_DAYS) - 1));
    const range = { accountId: input.accountId, from: `${firstDay}T00:00:00.000Z`, to: `${addDays(lastDay, 1)}T00:00:00.000Z` };
    const [days, lines, keys] = await Promise.all([this.usage.byDate(range), this.usage.byModelLine(range), this.usage.byKey(range)]);
    const byModel = modelTotals(lines);
    const topModels = byModel.slice(0, 8).map((m) => m.modelName);
    const topKeyIds = topBySpend(keys, (k) => k.apiKeyId);
    const [modelDaily, keyDaily] = await Promise.all([this.usage.daily(range, 'model_name', topModels), this.usage.daily(range, 'api_key_id', topKeyIds)]);
    return {
      lookback: input.startDate ? `${input.startDate}:${input.endDate}` : `${input.lookbackDays ?? DEFAULT_LOOKBACK_DAYS}d`,
      byDate: dailyTotals(firstDay, lastDay, days),
      byModel,
      byModelDaily: dailySeries(firstDay, lastDay, topModels, modelDaily),
      topModels,
      byKey: [...keys]
        .sort((a, b) => (a.usd + a.diem > b.usd + b.diem ? -1 : a.usd + a.diem < b.usd + b.diem ? 1 : 0))
        .map((k) => ({ apiKeyId: k.apiKeyId, totalUsd: toNumber(k.usd), totalDiem: toNumber(k.diem), totalUnits: k.units })),
      byKeyDaily: dailySeries(firstDay, lastDay, topKeyIds, keyDaily),
      topKeyIds,
    };
  }

  /** Settled usage of each key in its current limit window and in the trailing 7 days (today included). */
  async keyUsage(input: KeyUsageInput, now = new Date()): Promise<KeyUsageReply> {
    const today = utcDay(now);
    const rows = await this.usage.keyUsage(
      input.accountId,
      input.keys.map((k) => ({ id: k.id, since: windowStart(k.limitPeriod, today) })),
      `${addDays(today, -6)}T00:00:00.000Z`,
    );
    const byKey = new Map(rows.map((r) => [r.keyId, r]));
    const usage: KeyUsageReply['usage'] = {};
    for (const key of input.keys) {
      const r = byKey.get(key.id);
      usage[key.id] = {
        currentPeriod: { usd: (r?.current.usd ?? 0n).toString(), diem: (r?.current.diem ?? 0n).toString() },
        trailingSevenDays: { usd: (r?.week.usd ?? 0n).toString(), diem: (r?.week.diem ?? 0n).toString() },
      };
    }
    return { usage };
  }

  private cursorSecret(): Promise<Buffer> {
    this.secret ??= this.accounts.secret(CURSOR_SECRET).catch((err: unknown) => {
      this.secret = null;
      throw err;
    });
    return this.secret;
  }
}

function toEntry(row: UsageRow): UsageHistoryEntry {
  return {
    amount: -toNumber(row.amount),
    currency: row.currency,
    inferenceDetails: {
      completionTokens: row.completionTokens,
      inferenceExecutionTime: row.executionMs,
      promptTokens: row.promptTokens,
      requestId: row.requestId,
    },
    notes: 'API Inference',
    pricePerUnitUsd: toNumber(row.unitPriceUsd),
    sku: row.sku,
    timestamp: row.at,
    units: Number(row.quantity) / row.perSkuUnit,
  };
}
