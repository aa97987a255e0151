import { z } from 'zod';
import { API_TIERS, isRateLimitTarget, RATE_LIMIT_CLASSES } from '@svc/contracts';

/** Largest limit an operator may set (fits the INTEGER columns with room to spare). */
export const MAX_LIMIT_VALUE = 2_000_000_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const uuid = z.string().regex(UUID, 'must be a UUID');
export const rateLimitTargetSchema = z.string().refine(isRateLimitTarget, `must be "*", one of ${RATE_LIMIT_CLASSES.join(', ')}, or model:<model id>`);

/** A limit from the command line: a positive integer, or `inherit` to clear the override. */
const limitValue = z
  .string()
  .regex(/^(\d+|inherit)$/, 'must be a positive integer or "inherit"')
  .transform((v) => (v === 'inherit' ? null : Number(v)))
  .refine((v) => v === null || (v >= 1 && v <= MAX_LIMIT_VALUE), `must be between 1 and ${MAX_LIMIT_VALUE}, or "inherit"`)
  .optional();

/** Exactly one of account and key: an account's limits, or one key's own (lower) limits. */
const exactlyOneSubject = (v: { accountId?: string; keyId?: string }) => (v.accountId === undefined) !== (v.keyId === undefined);
const ONE_SUBJECT = { message: 'give exactly one of --account and --key', path: ['accountId'] };

export const setLimitsSchema = z
  .object({ accountId: uuid.optional(), keyId: uuid.optional(), target: rateLimitTargetSchema.default('*'), rpm: limitValue, tpm: limitValue, rpd: limitValue })
  .refine(exactlyOneSubject, ONE_SUBJECT)
  .refine((v) => v.rpm !== undefined || v.tpm !== undefined || v.rpd !== undefined, { message: 'give at least one of --rpm, --tpm, --rpd', path: ['rpm'] });

export const clearLimitsSchema = z
  .object({ accountId: uuid.optional(), keyId: uuid.optional(), target: rateLimitTargetSchema.optional() })
  .refine(exactlyOneSubject, ONE_SUBJECT);

export const setTierSchema = z.object({ accountId: uuid, tier: z.enum(API_TIERS) });
export const showLimitsSchema = z.object({ accountId: uuid });

export type SetLimitsInput = z.output<typeof setLimitsSchema>;
export type ClearLimitsInput = z.output<typeof clearLimitsSchema>;
export type SetTierInput = z.output<typeof setTierSchema>;
