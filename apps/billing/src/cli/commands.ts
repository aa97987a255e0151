import { z } from 'zod';
import { formatAmount, MoneyFormatError, parseAmount } from '@svc/pricing';
import { consumptionOrderSchema, uuid } from '../shared/schemas';
import { CliContext } from './cli-context';
import { UsageError } from './usage';

type Values = Record<string, string | undefined>;

export interface Command {
  options: Record<string, { type: 'string' }>;
  /** Validates the command line before anything connects; returns the input of `run`. */
  parse(values: Values): unknown;
  run(ctx: CliContext, input: never): Promise<unknown>;
}

function required(values: Values, flag: string): string {
  const value = values[flag];
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required`);
  return value;
}

function account(values: Values): string {
  const id = required(values, 'account');
  if (!uuid.safeParse(id).success) throw new UsageError('--account must be an account id (a UUID, see `npm run svc -- accounts list`)');
  return id;
}

function amount(values: Values, flag: string, allowZero = false): bigint {
  let nano: bigint;
  try {
    nano = parseAmount(required(values, flag));
  } catch (err) {
    throw new UsageError(`--${flag}: ${err instanceof MoneyFormatError ? err.message : String(err)}`);
  }
  if (nano < 0n || (!allowZero && nano === 0n)) throw new UsageError(`--${flag} must be ${allowZero ? 'zero or more' : 'more than zero'}`);
  return nano;
}

function reason(values: Values, fallback?: string): string {
  const text = values.reason ?? fallback;
  if (!text) throw new UsageError('--reason is required: say why, it is kept in the ledger');
  if (text.length > 500) throw new UsageError('--reason must be at most 500 characters');
  return text;
}

const usd = (nano: bigint) => formatAmount(nano);

interface Adjust {
  accountId: string;
  amount: bigint;
  reason: string;
  idempotencyKey: string | null;
}

export const COMMANDS: Record<string, Command> = {
  credit: {
    options: { account: { type: 'string' }, usd: { type: 'string' }, reason: { type: 'string' }, 'idempotency-key': { type: 'string' } },
    parse: (v): Adjust => ({ accountId: account(v), amount: amount(v, 'usd'), reason: reason(v), idempotencyKey: v['idempotency-key'] ?? null }),
    run: async (ctx, a: Adjust) => {
      const r = await ctx.accounts.adjust(a.accountId, 'CREDIT', a.amount, a.reason, a.idempotencyKey);
      return {
        status: r.status,
        accountId: a.accountId,
        creditedUsd: r.status === 'applied' ? usd(a.amount) : '0.00',
        balanceUsd: usd(r.balance),
        availableUsd: usd(r.available),
      };
    },
  },
  debit: {
    options: { account: { type: 'string' }, usd: { type: 'string' }, reason: { type: 'string' } },
    parse: (v): Adjust => ({ accountId: account(v), amount: amount(v, 'usd'), reason: reason(v), idempotencyKey: null }),
    run: async (ctx, a: Adjust) => {
      const r = await ctx.accounts.adjust(a.accountId, 'DEBIT', a.amount, a.reason, null);
      return { status: r.status, accountId: a.accountId, debitedUsd: usd(a.amount), balanceUsd: usd(r.balance), availableUsd: usd(r.available) };
    },
  },
  stake: {
    options: { account: { type: 'string' }, diem: { type: 'string' }, reason: { type: 'string' } },
    parse: (v) => ({ accountId: account(v), stake: amount(v, 'diem', true), reason: reason(v, 'operator set the DIEM stake') }),
    run: async (ctx, a: { accountId: string; stake: bigint; reason: string }) => {
      const r = await ctx.accounts.setStake(a.accountId, a.stake, a.reason);
      return {
        accountId: a.accountId,
        previousDiem: usd(r.previous),
        diemStake: usd(r.stake),
        note: 'The stake is the DIEM allocation of every epoch (UTC day), the current one included.',
      };
    },
  },
  consumption: {
    options: { account: { type: 'string' }, order: { type: 'string' } },
    parse: (v) => {
      const order = consumptionOrderSchema.safeParse(required(v, 'order').toUpperCase());
      if (!order.success) throw new UsageError('--order must be DIEM_FIRST, USD_FIRST, USD_ONLY or DIEM_ONLY');
      return { accountId: account(v), order: order.data };
    },
    run: async (ctx, a: { accountId: string; order: z.infer<typeof consumptionOrderSchema> }) => {
      await ctx.accounts.setConsumptionOrder(a.accountId, a.order);
      return { accountId: a.accountId, consumptionOrder: a.order };
    },
  },
  balance: {
    options: { account: { type: 'string' } },
    parse: (v) => account(v),
    run: async (ctx, accountId: string) => {
      const b = await ctx.accounts.balance(accountId);
      return {
        accountId,
        availableUsd: usd(BigInt(b.usdNano)),
        availableDiem: usd(BigInt(b.diemNano)),
        diemEpochAllocation: usd(BigInt(b.diemAllocationNano)),
        epoch: b.epoch,
        consumptionOrder: b.consumptionOrder,
        consumptionCurrency: b.consumptionCurrency,
        canConsume: b.canConsume,
      };
    },
  },
  ledger: {
    options: { account: { type: 'string' }, limit: { type: 'string' } },
    parse: (v) => {
      const limit = v.limit === undefined ? 50 : Number(v.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new UsageError('--limit must be a whole number from 1 to 10000');
      return { accountId: account(v), limit };
    },
    run: async (ctx, a: { accountId: string; limit: number }) => ({
      accountId: a.accountId,
      entries: (await ctx.accounts.ledger(a.accountId, a.limit)).map((e) => ({ ...e, amount: usd(e.amount) })),
    }),
  },
  reconcile: {
    options: { account: { type: 'string' } },
    parse: (v) => (v.account === undefined ? null : account(v)),
    run: async (ctx, accountId: string | null) => {
      const r = await ctx.accounts.reconcile(accountId);
      return {
        ok: r.mismatches.length === 0 && r.overdueHolds === 0,
        accountsChecked: r.accounts,
        mismatches: r.mismatches.map((m) => ({ ...m, cached: usd(m.cached), ledger: usd(m.ledger) })),
        overdueHolds: r.overdueHolds,
      };
    },
  },
  sweep: {
    options: {},
    parse: () => undefined,
    run: (ctx) => ctx.sweeper.sweep(),
  },
};
