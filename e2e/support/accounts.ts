import { Client } from 'pg';
import { KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';

/**
 * A fresh account credited with `balanceNano` USD and one INFERENCE key whose LIFETIME USD
 * consumption limit is `limitNano` (null: no limit), made as the keys service and the operator's
 * billing_adjust would.
 */
export async function accountWithKey(rpc: RpcClient, db: Client, balanceNano: bigint, limitNano: bigint | null): Promise<{ account: string; key: string }> {
  const { accountId } = await rpc.send(KEYS.CREATE_ACCOUNT, { name: `e2e ${Date.now()}` });
  const { apiKey } = await rpc.send(KEYS.CREATE, {
    accountId,
    apiKeyType: 'INFERENCE',
    description: 'e2e',
    expiresAt: null,
    consumptionLimits: { usd: limitNano === null ? null : Number(limitNano) / 1e9, diem: null },
    limitPeriod: 'LIFETIME',
    modelPrivacy: 'ALL',
  });
  await db.query(`SELECT * FROM billing_adjust($1, 'CREDIT', $2, 'e2e credit', NULL)`, [accountId, balanceNano.toString()]);
  return { account: accountId, key: apiKey };
}
