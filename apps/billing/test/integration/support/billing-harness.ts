import { randomUUID } from 'node:crypto';
import { BILLING, BillableUsage, ReserveRequest, SettleReply, SettleRequest } from '@svc/contracts';
import { bootstrapService, RpcClient } from '@svc/messaging';
import { formatAmount, parseAmount } from '@svc/pricing';
import { createServiceHarness, ServiceHarness } from '@svc/testing';
import { AccountsService } from '../../../src/accounts/accounts.service';
import { AppModule } from '../../../src/app.module';
import { loadServiceConfig } from '../../../src/config';
import { billingMigrationsDir } from '../../../src/database/billing-migrations';
import { ReservationSweeper, SweepResult } from '../../../src/sweeper/reservation.sweeper';

process.env.LOG_LEVEL ??= 'warn';

/** Priced like the default catalog's model: 10 nano-USD per input token, 20 per output token. */
export const PRICING = { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } };
export const IN = 10n;
export const OUT = 20n;

/** The billing service on its own nats-server and database (ServiceHarness), with what its tests ask of it. */
export interface BillingHarness extends ServiceHarness {
  rpc: RpcClient;
  /** Credits USD (decimal text) through the service's own class, as the operator CLI does. */
  credit(accountId: string, usd: string): Promise<void>;
  sweep(): Promise<SweepResult>;
  balance(accountId: string): Promise<{ usd: string; diem: string }>;
  reserve(accountId: string, over?: Partial<ReserveRequest>): Promise<ReserveRequest>;
  settle(reservationId: string, over?: Partial<SettleRequest>): Promise<SettleReply>;
  /** Cached balances that differ from the ledger, and holds past their expiry. */
  reconcile(): Promise<{ mismatches: unknown[]; overdueHolds: number }>;
  heldCount(accountId: string): Promise<number>;
  /** The operator's view of the ledger, newest first. */
  ledger(accountId: string, limit: number): Promise<Array<{ kind: string; amount: string }>>;
}

export const text = (promptTokens: number, completionTokens: number): BillableUsage => ({ kind: 'text', promptTokens, completionTokens });
export const cost = (promptTokens: number, completionTokens: number): bigint => BigInt(promptTokens) * IN + BigInt(completionTokens) * OUT;
export const usd = (nano: bigint): string => formatAmount(nano);

export async function createBillingHarness(prefix = 'billing', baseEnv: Record<string, string> = {}): Promise<BillingHarness> {
  const service = await createServiceHarness({
    prefix,
    migrationsDir: billingMigrationsDir(),
    boot: (urls, env) => {
      const config = loadServiceConfig({
        NATS_URL: urls.nats,
        BILLING_DATABASE_URL: urls.db,
        BILLING_SWEEP_INTERVAL_MS: '3600000',
        LOG_LEVEL: 'warn',
        ...baseEnv,
        ...env,
      });
      return bootstrapService('billing', AppModule.forConfig(config), urls.nats);
    },
  });
  const { apps, sql } = service;
  const rpc = new RpcClient(service.nc, 10_000);
  const h: BillingHarness = {
    ...service,
    rpc,
    async credit(accountId, amount) {
      await apps[0].get(AccountsService).adjust(accountId, 'CREDIT', parseAmount(amount), 'integration test', null);
    },
    sweep: () => apps[0].get(ReservationSweeper).sweep(),
    async balance(accountId) {
      const reply = await rpc.send(BILLING.BALANCE, { accountId });
      return { usd: usd(BigInt(reply.usdNano)), diem: usd(BigInt(reply.diemNano)) };
    },
    async reserve(accountId, over = {}) {
      const request: ReserveRequest = {
        reservationId: randomUUID(),
        requestId: randomUUID().slice(0, 16),
        accountId,
        apiKeyId: KEY,
        keyLimits: { usd: null, diem: null, period: 'EPOCH' },
        model: { id: 'tiny', name: 'Tiny', type: 'text' },
        pricing: PRICING,
        worstCase: text(100, 100),
        ...over,
      };
      await rpc.send(BILLING.RESERVE, request);
      return request;
    },
    settle: (reservationId, over = {}) => rpc.send(BILLING.SETTLE, { reservationId, source: 'service', outcome: 'completed', usage: text(10, 10), ...over }),
    async reconcile() {
      return apps[0].get(AccountsService).reconcile(null);
    },
    async ledger(accountId, limit) {
      return (await apps[0].get(AccountsService).ledger(accountId, limit)).map((e) => ({ kind: e.kind, amount: formatAmount(e.amount) }));
    },
    async heldCount(accountId) {
      const { rows } = await sql.query(`SELECT count(*)::int AS n FROM reservations WHERE account_id = $1 AND status = 'HELD'`, [accountId]);
      return rows[0].n;
    },
  };
  return h;
}

export const KEY = '99999999-9999-4999-8999-999999999999';
export const newAccount = (): string => randomUUID();
