import { z } from 'zod';
import { commonEnv, loadConfig, positiveInt, postgresUrl } from '@svc/config';

const MAX_BOOTSTRAP_USD = 1_000_000;

const MAX_INT = 2_147_483_647;

export const billingConfigSchema = z
  .object({
    ...commonEnv,
    BILLING_DATABASE_URL: postgresUrl('svc_billing'),
    BILLING_DB_POOL_MAX: positiveInt(10),
    /** Apply pending migrations at boot (harmless when `npm run migrate` already did). */
    BILLING_MIGRATE_ON_BOOT: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    /** USD credited once, ever, to the account named `bootstrap` (see SVC_ADMIN_KEY). 0 disables it. */
    SVC_BOOTSTRAP_CREDITS_USD: z
      .string()
      .default('100')
      .refine((v) => /^\d+(\.\d{1,9})?$/.test(v) && Number(v) <= MAX_BOOTSTRAP_USD, `must be a decimal amount of USD between 0 and ${MAX_BOOTSTRAP_USD}`),
    /** How long a hold lives without a settlement before the sweeper releases it (also the ceiling a caller may ask for). */
    BILLING_RESERVATION_TTL_MS: positiveInt(15 * 60_000),
    /** After the gateway reports a cut or broken stream, how long the service has to settle exactly before the gateway's count applies. */
    BILLING_SETTLE_GRACE_MS: positiveInt(30_000),
    /** How often each replica looks for expired holds. */
    BILLING_SWEEP_INTERVAL_MS: positiveInt(5_000),
    /** Reservations finalized per sweep query; a sweep loops until none are left or its time budget is spent. */
    BILLING_SWEEP_BATCH: positiveInt(200),
    /**
     * Wait for the disk (WAL flush) before admitting a request. Off by default: admission then costs
     * no fsync, and a Postgres crash can only lose holds no charge has followed yet (docs/billing.md).
     * Charges always commit synchronously.
     */
    BILLING_DURABLE_HOLDS: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    /** How long a usage-history cursor stays valid. */
    BILLING_CURSOR_TTL_MS: positiveInt(24 * 60 * 60_000),
    /** Credit leases for gateway replicas (docs/billing.md, "Leases"); false: every lease-open answers `exact`. */
    BILLING_LEASES: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    /** A lease is granted only when it covers at least this many worst cases of the request that asked; else `exact`. */
    BILLING_LEASE_MIN_UNITS: positiveInt(16),
    /** And never more than this many. */
    BILLING_LEASE_MAX_UNITS: positiveInt(1024),
    /** A lease takes at most 1/this of what is available (and of what is left of a key's limit). */
    BILLING_LEASE_FRACTION: positiveInt(4),
    /** How long a gateway may admit under a lease (never past the UTC day of the grant). */
    BILLING_LEASE_ADMIT_MS: positiveInt(10_000),
    /** After this (plus BILLING_SETTLE_GRACE_MS) the sweeper returns what a lease still holds, closed or not. */
    BILLING_LEASE_TTL_MS: positiveInt(10 * 60_000),
  })
  .superRefine((c, ctx) => {
    if (c.BILLING_LEASE_MIN_UNITS > c.BILLING_LEASE_MAX_UNITS)
      ctx.addIssue({ code: 'custom', path: ['BILLING_LEASE_MIN_UNITS'], message: 'must not exceed BILLING_LEASE_MAX_UNITS' });
    if (c.BILLING_LEASE_ADMIT_MS > c.BILLING_LEASE_TTL_MS)
      ctx.addIssue({ code: 'custom', path: ['BILLING_LEASE_ADMIT_MS'], message: 'must not exceed BILLING_LEASE_TTL_MS' });
    for (const name of [
      'BILLING_LEASE_MIN_UNITS',
      'BILLING_LEASE_MAX_UNITS',
      'BILLING_LEASE_FRACTION',
      'BILLING_LEASE_TTL_MS',
      'BILLING_SETTLE_GRACE_MS',
    ] as const) {
      if (c[name] > MAX_INT) ctx.addIssue({ code: 'custom', path: [name], message: `must be at most ${MAX_INT}` });
    }
  });

export type BillingConfig = z.infer<typeof billingConfigSchema>;
export const loadServiceConfig = (env: NodeJS.ProcessEnv = process.env): BillingConfig => loadConfig('billing', billingConfigSchema, env);

/** Injection token for the validated config. */
export const BILLING_CONFIG = Symbol('BILLING_CONFIG');
