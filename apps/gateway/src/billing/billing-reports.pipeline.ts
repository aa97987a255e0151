import { Injectable } from '@nestjs/common';
import { BalanceReply, BILLING, KEYS } from '@svc/contracts';
import { HEADER, paginationHeaders } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { toNumber } from '@svc/pricing';
import { RouteCall } from '../http/route-call';
import { balanceHeaders } from './balance-headers';
import { UsageAnalyticsQuery, UsageHistoryQuery } from './billing.dto';
import { csvFilename, usageCsv } from './usage-csv';
import { withKeyNames } from './usage-key-names';

/**
 * The account's billing reports (`/billing/*`, ADMIN keys): balance, usage history (JSON or CSV),
 * usage analytics with key names. Every answer carries the account's balances in
 * `x-svc-balance-usd` / `x-svc-balance-diem`.
 */
@Injectable()
export class BillingReportsPipeline {
  constructor(private readonly rpc: RpcClient) {}

  async balance(call: RouteCall) {
    const balance = await this.balanceOf(call);
    const allocation = BigInt(balance.diemAllocationNano);
    return {
      canConsume: balance.canConsume,
      consumptionCurrency: balance.consumptionCurrency,
      balances: { diem: allocation > 0n ? toNumber(BigInt(balance.diemNano)) : null, usd: toNumber(BigInt(balance.usdNano)) },
      diemEpochAllocation: toNumber(allocation),
    };
  }

  /** A page of usage lines; CSV (with its filename and cursor in headers) when the client accepts it. */
  async usageHistory(call: RouteCall, query: UsageHistoryQuery, accept: string | undefined) {
    const { caller, reply } = call;
    const [page] = await Promise.all([
      this.rpc.send(BILLING.USAGE_HISTORY, { accountId: caller.accountId, ...query }, { requestId: caller.requestId }),
      this.balanceOf(call),
    ]);
    reply.headers(paginationHeaders(page.pageSize, page.page, page.total ?? null));
    if (accept?.includes('text/csv')) {
      reply.header(HEADER.contentType, 'text/csv; charset=utf-8').header(HEADER.contentDisposition, `attachment; filename=${csvFilename()}`);
      if (page.nextCursor) reply.header(HEADER.nextCursor, page.nextCursor);
      return usageCsv(page.data);
    }
    return { data: page.data, nextCursor: page.nextCursor };
  }

  async usageAnalytics(call: RouteCall, query: UsageAnalyticsQuery) {
    const { caller } = call;
    const request = {
      accountId: caller.accountId,
      ...(query.startDate ? { startDate: query.startDate, endDate: query.endDate } : { lookbackDays: Number((query.lookback ?? '7d').slice(0, -1)) }),
    };
    const [analytics, keys] = await Promise.all([
      this.rpc.send(BILLING.USAGE_ANALYTICS, request, { requestId: caller.requestId }),
      this.rpc.send(KEYS.LIST, { accountId: caller.accountId }, { requestId: caller.requestId }),
      this.balanceOf(call),
    ]);
    return withKeyNames(analytics, new Map(keys.data.map((k) => [k.id, k.description])));
  }

  private async balanceOf({ caller, reply }: RouteCall): Promise<BalanceReply> {
    const balance = await this.rpc.send(BILLING.BALANCE, { accountId: caller.accountId }, { requestId: caller.requestId });
    for (const [name, value] of Object.entries(balanceHeaders({ usd: balance.usdNano, diem: balance.diemNano }))) reply.header(name, value);
    return balance;
  }
}
