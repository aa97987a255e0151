import { Injectable } from '@nestjs/common';
import { ApiKeyView, BILLING, CallerContext, NanoAmounts } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { formatAmount } from '@svc/pricing';

/** The public API's usage fields of an API key record (amounts as decimal strings). */
export interface KeyUsageFields {
  usage: { trailingSevenDays: { usd: string; diem: string; vcu: string } };
  /** Only for keys with a consumption limit. */
  currentPeriodUsage?: { usd: string; diem: string };
}

const text = (a: NanoAmounts) => ({ usd: formatAmount(BigInt(a.usd)), diem: formatAmount(BigInt(a.diem)) });

/**
 * Adds `usage.trailingSevenDays` and `currentPeriodUsage` to key records, from billing
 * (`billing.cmd.key-usage.v1`): one call for all the keys of a response. For GET /api_keys and
 * GET /api_keys/{id}: `await enricher.enrich(caller, data)`.
 */
@Injectable()
export class KeyUsageEnricher {
  constructor(private readonly rpc: RpcClient) {}

  async enrich<K extends ApiKeyView>(caller: CallerContext, keys: K[]): Promise<Array<K & KeyUsageFields>> {
    if (keys.length === 0) return [];
    const { usage } = await this.rpc.send(
      BILLING.KEY_USAGE,
      { accountId: caller.accountId, keys: keys.map((k) => ({ id: k.id, limitPeriod: k.limitPeriod })) },
      { requestId: caller.requestId },
    );
    return keys.map((key) => {
      const u = usage[key.id];
      const week = u ? text(u.trailingSevenDays) : { usd: '0.00', diem: '0.00' };
      const limited = key.consumptionLimits.usd !== null || key.consumptionLimits.diem !== null;
      return {
        ...key,
        usage: { trailingSevenDays: { ...week, vcu: week.diem } },
        ...(limited ? { currentPeriodUsage: u ? text(u.currentPeriod) : { usd: '0.00', diem: '0.00' } } : {}),
      };
    });
  }
}
