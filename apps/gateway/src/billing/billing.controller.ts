import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { BalanceReply, BILLING, CallerContext, KEYS, UsageAnalyticsReply } from '@svc/contracts';
import { HEADER, paginationHeaders } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { toNumber } from '@svc/pricing';
import { AdminOnly, Caller } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { balanceHeaders } from './balance-headers';
import { usageAnalyticsQuery, usageHistoryQuery } from './billing.dto';
import { csvFilename, usageCsv } from './usage-csv';

/**
 * Billing of the caller's account (ADMIN keys; the public API calls it beta). Every answer carries
 * the account's balances in `x-svc-balance-usd` / `x-svc-balance-diem`.
 */
@AdminOnly()
@Controller('billing')
export class BillingController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('balance')
  async balance(@Caller() caller: CallerContext, @Res({ passthrough: true }) reply: FastifyReply) {
    const balance = await this.balanceOf(caller, reply);
    const allocation = BigInt(balance.diemAllocationNano);
    return {
      canConsume: balance.canConsume,
      consumptionCurrency: balance.consumptionCurrency,
      balances: { diem: allocation > 0n ? toNumber(BigInt(balance.diemNano)) : null, usd: toNumber(BigInt(balance.usdNano)) },
      diemEpochAllocation: toNumber(allocation),
    };
  }

  @Get('usage-history')
  async usageHistory(
    @Query() query: unknown,
    @Headers('accept') accept: string | undefined,
    @Caller() caller: CallerContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const q = parseBody(usageHistoryQuery, query ?? {});
    const [page] = await Promise.all([
      this.rpc.send(BILLING.USAGE_HISTORY, { accountId: caller.accountId, ...q }, { requestId: caller.requestId }),
      this.balanceOf(caller, reply),
    ]);
    reply.headers(paginationHeaders(page.pageSize, page.page, page.total ?? null));
    if (accept?.includes('text/csv')) {
      reply.header(HEADER.contentType, 'text/csv; charset=utf-8').header(HEADER.contentDisposition, `attachment; filename=${csvFilename()}`);
      if (page.nextCursor) reply.header(HEADER.nextCursor, page.nextCursor);
      return usageCsv(page.data);
    }
    return { data: page.data, nextCursor: page.nextCursor };
  }

  @Get('usage-analytics')
  async usageAnalytics(@Query() query: unknown, @Caller() caller: CallerContext, @Res({ passthrough: true }) reply: FastifyReply) {
    const q = parseBody(usageAnalyticsQuery, query ?? {});
    const request = {
      accountId: caller.accountId,
      ...(q.startDate ? { startDate: q.startDate, endDate: q.endDate } : { lookbackDays: Number((q.lookback ?? '7d').slice(0, -1)) }),
    };
    const [analytics, keys] = await Promise.all([
      this.rpc.send(BILLING.USAGE_ANALYTICS, request, { requestId: caller.requestId }),
      this.rpc.send(KEYS.LIST, { accountId: caller.accountId }, { requestId: caller.requestId }),
      this.balanceOf(caller, reply),
    ]);
    return withKeyNames(analytics, new Map(keys.data.map((k) => [k.id, k.description])));
  }

  private async balanceOf(caller: CallerContext, reply: FastifyReply): Promise<BalanceReply> {
    const balance = await this.rpc.send(BILLING.BALANCE, { accountId: caller.accountId }, { requestId: caller.requestId });
    for (const [name, value] of Object.entries(balanceHeaders({ usd: balance.usdNano, diem: balance.diemNano }))) reply.header(name, value);
    return balance;
  }
}

/** The public shape: keys by description (deleted keys say so), charts keyed by those names. */
export function withKeyNames(a: UsageAnalyticsReply, descriptions: Map<string, string>) {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const nameOf = (id: string | null): string => {
    if (id === null) return 'Unknown key';
    let name = names.get(id);
    if (name) return name;
    name = descriptions.get(id) || `Deleted key ${id.slice(0, 8)}`;
    if (taken.has(name)) name = `${name} (${id.slice(0, 8)})`;
    taken.add(name);
    names.set(id, name);
    return name;
  };
  const { topKeyIds, byKeyDaily, byKey, ...rest } = a;
  return {
    ...rest,
    byKey: byKey.map((k) => ({
      apiKeyId: k.apiKeyId,
      description: nameOf(k.apiKeyId),
      totalUsd: k.totalUsd,
      totalDiem: k.totalDiem,
      totalUnits: k.totalUnits,
    })),
    byKeyDaily: byKeyDaily.map((day) => Object.fromEntries(Object.entries(day).map(([k, v]) => [k === 'date' ? k : nameOf(k), v]))),
    topKeyNames: topKeyIds.map(nameOf),
  };
}
