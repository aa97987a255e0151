import { createAccountRequestSchema, createKeyRequestSchema, listKeysRequestSchema } from '@svc/contracts';
import { z } from 'zod';
import { DomainError, ErrorCode } from '@svc/errors';
import { isUuid } from '../keys/keys.schemas';
import { clearLimitsSchema, setLimitsSchema, setTierSchema, showLimitsSchema } from '../rate-limits/rate-limits.schemas';
import { CliContext } from './cli-context';
import { UsageError } from './usage';

type Values = Record<string, string | undefined>;

export interface Command {
  options: Record<string, { type: 'string' }>;
  positionals: string[];
  /** Publishes events to gateways (best effort over NATS). */
  needsEvents?: boolean;
  /** Validates the command line before anything connects; returns the input of `run`. */
  parse(values: Values, positionals: string[]): unknown;
  run(ctx: CliContext, input: never): Promise<unknown>;
}

const FLAG_OF: Record<string, string> = {
  accountId: '--account',
  keyId: '--key',
  apiKeyType: '--type',
  expiresAt: '--expires',
  description: '--description',
  name: '--name',
  target: '--target',
  rpm: '--rpm',
  tpm: '--tpm',
  rpd: '--rpd',
  tier: '--tier',
};

function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${FLAG_OF[String(i.path[0])] ?? i.path.join('.')}: ${i.message}`);
  throw new UsageError(problems.join('\n'));
}

function required(values: Values, flag: string): string {
  const value = values[flag];
  if (value === undefined) throw new UsageError(`--${flag} is required`);
  return value;
}

const LIMIT_FLAGS = {
  account: { type: 'string' },
  key: { type: 'string' },
  target: { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  rpd: { type: 'string' },
} as const;

export const COMMANDS: Record<string, Command> = {
  'accounts create': {
    options: { name: { type: 'string' } },
    positionals: [],
    parse: (v) => parseWith(createAccountRequestSchema, { name: required(v, 'name') }).name,
    run: (ctx, name: string) => ctx.accounts.create(name),
  },
  'accounts list': {
    options: {},
    positionals: [],
    parse: () => undefined,
    run: async (ctx) => ({ data: await ctx.accounts.list() }),
  },
  'keys create': {
    options: { account: { type: 'string' }, type: { type: 'string' }, description: { type: 'string' }, expires: { type: 'string' } },
    positionals: [],
    parse: (v) =>
      parseWith(createKeyRequestSchema, {
        accountId: required(v, 'account'),
        apiKeyType: required(v, 'type').toUpperCase(),
        description: v.description ?? '',
        expiresAt: v.expires ?? null,
      }),
    run: (ctx, input: z.output<typeof createKeyRequestSchema>) => ctx.keys.create(input),
  },
  'keys list': {
    options: { account: { type: 'string' } },
    positionals: [],
    parse: (v) => parseWith(listKeysRequestSchema, { accountId: required(v, 'account') }).accountId,
    run: async (ctx, accountId: string) => ({ data: await ctx.keys.list(accountId) }),
  },
  'keys revoke': {
    options: {},
    positionals: ['keyId'],
    needsEvents: true,
    parse: (_v, [keyId]) => {
      if (!isUuid(keyId)) throw new UsageError('keyId must be a UUID (see `keys list`)');
      return keyId;
    },
    run: async (ctx, keyId: string) => {
      const key = await ctx.keysRepository.findById(keyId);
      if (!key) throw new DomainError(ErrorCode.NotFound, `API key ${keyId} not found`);
      if (key.deletedAt) return { success: true, id: keyId, alreadyRevoked: true };
      await ctx.keys.delete(key.accountId, key.id);
      return { success: true, id: keyId, accountId: key.accountId, gatewaysNotified: ctx.eventsDelivered };
    },
  },
  'limits show': {
    options: { account: { type: 'string' } },
    positionals: [],
    parse: (v) => parseWith(showLimitsSchema, { accountId: required(v, 'account') }).accountId,
    run: (ctx, accountId: string) => ctx.rateLimits.show(accountId),
  },
  'limits set': {
    options: LIMIT_FLAGS,
    positionals: [],
    needsEvents: true,
    parse: (v) => parseWith(setLimitsSchema, { accountId: v.account, keyId: v.key, target: v.target, rpm: v.rpm, tpm: v.tpm, rpd: v.rpd }),
    run: async (ctx, input: z.output<typeof setLimitsSchema>) => ({ ...(await ctx.rateLimits.set(input)), gatewaysNotified: ctx.eventsDelivered }),
  },
  'limits clear': {
    options: { account: { type: 'string' }, key: { type: 'string' }, target: { type: 'string' } },
    positionals: [],
    needsEvents: true,
    parse: (v) => parseWith(clearLimitsSchema, { accountId: v.account, keyId: v.key, target: v.target }),
    run: async (ctx, input: z.output<typeof clearLimitsSchema>) => ({ ...(await ctx.rateLimits.clear(input)), gatewaysNotified: ctx.eventsDelivered }),
  },
  'limits tier': {
    options: { account: { type: 'string' }, tier: { type: 'string' } },
    positionals: [],
    needsEvents: true,
    parse: (v) => parseWith(setTierSchema, { accountId: required(v, 'account'), tier: required(v, 'tier').toLowerCase() }),
    run: async (ctx, input: z.output<typeof setTierSchema>) => ({
      ...(await ctx.rateLimits.setTier(input.accountId, input.tier)),
      gatewaysNotified: ctx.eventsDelivered,
    }),
  },
};
