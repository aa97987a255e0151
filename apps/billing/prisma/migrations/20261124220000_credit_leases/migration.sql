-- Credit leases (issue 14): a gateway replica holds a block of an account's credit (and of a limited
-- key's window) in one transaction and admits requests against it in memory; services settle
-- those requests in batches (billing_settle_leased), one transaction per batch. docs/billing.md, "Leases".

-- CreateEnum
CREATE TYPE "lease_status" AS ENUM ('OPEN', 'CLOSING', 'CLOSED');

-- AlterTable
ALTER TABLE "reservations" ADD COLUMN     "lease_id" UUID;

-- CreateTable
CREATE TABLE "leases" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "api_key_id" UUID,
    "key_period" VARCHAR(16),
    "currency" "currency" NOT NULL,
    "epoch" DATE NOT NULL,
    "granted_nano" BIGINT NOT NULL,
    "held_nano" BIGINT NOT NULL,
    "charged_nano" BIGINT NOT NULL DEFAULT 0,
    "released_nano" BIGINT NOT NULL DEFAULT 0,
    "settled_held_nano" BIGINT NOT NULL DEFAULT 0,
    "status" "lease_status" NOT NULL DEFAULT 'OPEN',
    "admitted_count" INTEGER,
    "admitted_nano" BIGINT,
    "settled_count" INTEGER NOT NULL DEFAULT 0,
    "admit_until" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closed_at" TIMESTAMPTZ(3),
    "swept_at" TIMESTAMPTZ(3),

    CONSTRAINT "leases_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "leases_status_expires_at_idx" ON "leases"("status", "expires_at");

-- =============================================================================================
-- Written by hand below: what Prisma's schema cannot express (docs/billing.md, "Leases").
-- Keep in step with apps/billing/src/leases/leases.repository.ts.
-- Lock order everywhere: reservation or lease rows (in id order), then accounts (in id order),
-- then key_usage. billing_settle_leased takes all of its leases, then all of their accounts,
-- before it writes anything, so batches touching several accounts cannot deadlock each other.
-- =============================================================================================

-- The open leases of an account, for its balance (GET /billing/balance does not count their blocks as spent).
CREATE INDEX "leases_open_by_account_idx" ON "leases" ("account_id") WHERE "status" <> 'CLOSED';

ALTER TABLE "leases" ADD CONSTRAINT "leases_amounts_non_negative" CHECK (
  "granted_nano" >= 0 AND "held_nano" >= 0 AND "charged_nano" >= 0 AND "released_nano" >= 0 AND "settled_held_nano" >= 0
  AND "settled_count" >= 0 AND coalesce("admitted_count", 0) >= 0 AND coalesce("admitted_nano", 0) >= 0);
-- Every nano-unit of a grant is held, charged to a child or released: never more, never lost.
ALTER TABLE "leases" ADD CONSTRAINT "leases_held_accounted" CHECK ("held_nano" = "granted_nano" - "charged_nano" - "released_nano");
ALTER TABLE "leases" ADD CONSTRAINT "leases_closed_holds_nothing" CHECK ("status" <> 'CLOSED' OR "held_nano" = 0);

-- Opens a credit lease: holds a block of the account's available balance (and of the key's limit
-- window when the key has a limit in that currency) for one gateway replica. The currency is the
-- first of the consumption order that can pay one unit (the worst case of the request that asked),
-- exactly as billing_reserve picks it: a later currency is never taken because the first one is
-- too small for a block. The block is at most 1/p_fraction of what is available (and of what is
-- left of the key's limit) and at most p_max_units units; under p_min_units units the answer is
-- 'exact' (the gateway reserves each request exactly, so a small balance admits exactly what it
-- can pay for). A retried open gets its first answer while the lease is open ('exact' once it is
-- not). Commits synchronously: a granted lease must survive a crash, or its requests would go
-- unbilled.
CREATE FUNCTION "billing_lease_open"(
  p_id uuid, p_account uuid, p_key uuid,
  p_limit_usd bigint, p_limit_diem bigint, p_limit_period text,
  p_unit_usd bigint, p_unit_diem bigint,
  p_min_units integer, p_max_units integer, p_fraction integer,
  p_admit_ms integer, p_ttl_ms integer
) RETURNS TABLE (o_outcome text, o_currency "currency", o_granted bigint, o_usd_available bigint, o_diem_available bigint,
                 o_admit_until timestamptz, o_expires_at timestamptz, o_replay boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := now();
  v_today date := (now() AT TIME ZONE 'UTC')::date;
  v_acc "billing_accounts"%ROWTYPE;
  v_prev "leases"%ROWTYPE;
  v_ku "key_usage"%ROWTYPE;
  v_period text;
  v_avail_usd bigint;
  v_avail_diem bigint;
  v_order "currency"[];
  v_c "currency";
  v_unit bigint;
  v_avail bigint;
  v_key_left bigint;
  v_chosen "currency";
  v_grant bigint;
  v_admit_until timestamptz;
  v_expires timestamptz;
BEGIN
  IF p_key IS NULL AND (p_limit_usd IS NOT NULL OR p_limit_diem IS NOT NULL) THEN
    RAISE EXCEPTION 'billing_lease_open: consumption limits need the key they belong to';
  END IF;
  IF p_fraction < 1 OR p_min_units < 1 OR p_max_units < p_min_units OR p_admit_ms < 1 OR p_ttl_ms < p_admit_ms THEN
    RAISE EXCEPTION 'billing_lease_open: invalid lease sizing';
  END IF;
  SELECT * INTO v_acc FROM "billing_accounts" WHERE "id" = p_account FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO "billing_accounts" ("id", "diem_epoch") VALUES (p_account, v_today) ON CONFLICT ("id") DO NOTHING;
    SELECT * INTO v_acc FROM "billing_accounts" WHERE "id" = p_account FOR UPDATE;
  END IF;
  IF v_acc."diem_epoch" <> v_today THEN
    v_acc."diem_epoch" := v_today;
    v_acc."diem_used_nano" := 0;
    v_acc."diem_held_nano" := 0;
  END IF;
  v_avail_usd := v_acc."balance_usd_nano" - v_acc."held_usd_nano";
  v_avail_diem := greatest(v_acc."diem_stake_nano" - v_acc."diem_used_nano" - v_acc."diem_held_nano", 0);

  -- A retried open gets its first answer back (checked under the account lock).
  SELECT * INTO v_prev FROM "leases" WHERE "id" = p_id;
  IF FOUND THEN
    IF v_prev."status" = 'OPEN' AND v_prev."admit_until" > v_now THEN
      RETURN QUERY SELECT 'granted'::text, v_prev."currency", v_prev."granted_nano",
        v_avail_usd + CASE WHEN v_prev."currency" = 'USD' THEN v_prev."held_nano" ELSE 0 END,
        v_avail_diem + CASE WHEN v_prev."currency" = 'DIEM' AND v_prev."epoch" = v_acc."diem_epoch" THEN v_prev."held_nano" ELSE 0 END,
        v_prev."admit_until", v_prev."expires_at", true;
    ELSE
      RETURN QUERY SELECT 'exact'::text, NULL::"currency", NULL::bigint, v_avail_usd, v_avail_diem, NULL::timestamptz, NULL::timestamptz, true;
    END IF;
    RETURN;
  END IF;

  -- The key's window, exactly as billing_reserve locks or creates it.
  IF p_key IS NOT NULL AND (p_limit_usd IS NOT NULL OR p_limit_diem IS NOT NULL) THEN
    v_period := "billing_period_key"(p_limit_period, v_today);
    SELECT * INTO v_ku FROM "key_usage" WHERE "api_key_id" = p_key AND "period" = v_period FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO "key_usage" ("api_key_id", "period", "used_usd_nano", "used_diem_nano")
      SELECT p_key, v_period,
             coalesce(sum(u."amount_nano") FILTER (WHERE u."currency" = 'USD'), 0),
             coalesce(sum(u."amount_nano") FILTER (WHERE u."currency" = 'DIEM'), 0)
      FROM "usage_entries" u
      WHERE u."account_id" = p_account AND u."api_key_id" = p_key
        AND u."created_at" >= CASE p_limit_period
              WHEN 'EPOCH' THEN v_today::timestamp AT TIME ZONE 'UTC'
              WHEN 'MONTH' THEN date_trunc('month', v_today::timestamp) AT TIME ZONE 'UTC'
              ELSE '-infinity'::timestamptz END
      ON CONFLICT DO NOTHING;
      SELECT * INTO v_ku FROM "key_usage" WHERE "api_key_id" = p_key AND "period" = v_period FOR UPDATE;
    END IF;
  END IF;

  -- The consumption order, with the cost of one unit: the first currency that can pay it is the lease's.
  v_order := CASE v_acc."consumption_order"
    WHEN 'DIEM_FIRST' THEN ARRAY['DIEM', 'USD']::"currency"[]
    WHEN 'USD_FIRST' THEN ARRAY['USD', 'DIEM']::"currency"[]
    WHEN 'USD_ONLY' THEN ARRAY['USD']::"currency"[]
    ELSE ARRAY['DIEM']::"currency"[]
  END;
  FOREACH v_c IN ARRAY v_order LOOP
    IF v_c = 'USD' THEN
      v_unit := p_unit_usd;
      v_avail := v_avail_usd;
      v_key_left := p_limit_usd - v_ku."used_usd_nano" - v_ku."held_usd_nano";
    ELSE
      CONTINUE WHEN v_acc."diem_stake_nano" = 0;
      v_unit := p_unit_diem;
      v_avail := v_avail_diem;
      v_key_left := p_limit_diem - v_ku."used_diem_nano" - v_ku."held_diem_nano";
    END IF;
    CONTINUE WHEN v_unit > v_avail;
    CONTINUE WHEN v_key_left IS NOT NULL AND v_unit > v_key_left;
    v_chosen := v_c;
    EXIT;
  END LOOP;

  IF v_chosen IS NOT NULL THEN
    v_grant := least(v_avail / p_fraction, v_unit::numeric * p_max_units)::bigint;
    IF v_key_left IS NOT NULL THEN
      v_grant := least(v_grant, v_key_left / p_fraction);
    END IF;
    IF v_unit <= 0 OR v_grant < v_unit::numeric * p_min_units THEN
      v_chosen := NULL;
    END IF;
  END IF;
  IF v_chosen IS NULL THEN
    RETURN QUERY SELECT 'exact'::text, NULL::"currency", NULL::bigint, v_avail_usd, v_avail_diem, NULL::timestamptz, NULL::timestamptz, false;
    RETURN;
  END IF;

  UPDATE "billing_accounts" SET
    "held_usd_nano" = v_acc."held_usd_nano" + CASE WHEN v_chosen = 'USD' THEN v_grant ELSE 0 END,
    "diem_epoch" = v_acc."diem_epoch",
    "diem_used_nano" = v_acc."diem_used_nano",
    "diem_held_nano" = v_acc."diem_held_nano" + CASE WHEN v_chosen = 'DIEM' THEN v_grant ELSE 0 END,
    "updated_at" = now()
  WHERE "id" = p_account;
  IF v_key_left IS NOT NULL THEN
    UPDATE "key_usage" SET
      "held_usd_nano" = "held_usd_nano" + CASE WHEN v_chosen = 'USD' THEN v_grant ELSE 0 END,
      "held_diem_nano" = "held_diem_nano" + CASE WHEN v_chosen = 'DIEM' THEN v_grant ELSE 0 END
    WHERE "api_key_id" = p_key AND "period" = v_period;
  END IF;
  INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "epoch", "reservation_id")
  VALUES (p_account, v_chosen, 'HOLD', v_grant, CASE WHEN v_chosen = 'DIEM' THEN v_today END, p_id);
  -- No admission after the UTC day of the grant: the DIEM epoch and an EPOCH key window end there.
  INSERT INTO "leases" ("id", "account_id", "api_key_id", "key_period", "currency", "epoch", "granted_nano", "held_nano", "admit_until", "expires_at")
  VALUES (p_id, p_account, p_key, CASE WHEN v_key_left IS NOT NULL THEN v_period END, v_chosen, v_today, v_grant, v_grant,
          least(v_now + p_admit_ms * interval '1 millisecond', (v_today + 1)::timestamp AT TIME ZONE 'UTC'),
          v_now + p_ttl_ms * interval '1 millisecond')
  RETURNING "admit_until", "expires_at" INTO v_admit_until, v_expires;
  RETURN QUERY SELECT 'granted'::text, v_chosen, v_grant, v_avail_usd, v_avail_diem, v_admit_until, v_expires, false;
END
$$;

-- Returns p_amount of what a locked lease holds to its account (and key window): the account's
-- held amount (USD, or DIEM while the lease's epoch is the account's), key_usage, a RELEASE entry
-- and the lease's own counters. For billing_lease_close and billing_lease_expire.
CREATE FUNCTION "billing_lease_release"(p_lease "leases", p_amount bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_today date := (now() AT TIME ZONE 'UTC')::date;
  v_acc "billing_accounts"%ROWTYPE;
BEGIN
  IF p_amount <= 0 THEN
    RETURN;
  END IF;
  SELECT * INTO v_acc FROM "billing_accounts" WHERE "id" = p_lease."account_id" FOR UPDATE;
  IF v_acc."diem_epoch" <> v_today THEN
    v_acc."diem_epoch" := v_today;
    v_acc."diem_used_nano" := 0;
    v_acc."diem_held_nano" := 0;
  END IF;
  UPDATE "billing_accounts" SET
    "held_usd_nano" = v_acc."held_usd_nano" - CASE WHEN p_lease."currency" = 'USD' THEN p_amount ELSE 0 END,
    "diem_epoch" = v_acc."diem_epoch",
    "diem_used_nano" = v_acc."diem_used_nano",
    "diem_held_nano" = v_acc."diem_held_nano" - CASE WHEN p_lease."currency" = 'DIEM' AND p_lease."epoch" = v_acc."diem_epoch" THEN p_amount ELSE 0 END,
    "updated_at" = now()
  WHERE "id" = v_acc."id";
  IF p_lease."key_period" IS NOT NULL THEN
    UPDATE "key_usage" SET
      "held_usd_nano" = "held_usd_nano" - CASE WHEN p_lease."currency" = 'USD' THEN p_amount ELSE 0 END,
      "held_diem_nano" = "held_diem_nano" - CASE WHEN p_lease."currency" = 'DIEM' THEN p_amount ELSE 0 END
    WHERE "api_key_id" = p_lease."api_key_id" AND "period" = p_lease."key_period";
  END IF;
  INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "epoch", "reservation_id")
  VALUES (p_lease."account_id", p_lease."currency", 'RELEASE', -p_amount, CASE WHEN p_lease."currency" = 'DIEM' THEN p_lease."epoch" END, p_lease."id");
  UPDATE "leases" SET "held_nano" = "held_nano" - p_amount, "released_nano" = "released_nano" + p_amount WHERE "id" = p_lease."id";
END
$$;

-- The gateway is done with a lease: p_admitted requests were admitted under it, holding
-- p_admitted_nano in all. What no admitted-but-unsettled request can still need is released at
-- once; the rest as those requests settle (billing_settle_leased), or everything now when they all
-- have. Idempotent: 'closing' and 'already-closed' change nothing. Commits without waiting for the
-- disk: a lost close only leaves the hold to the sweeper.
CREATE FUNCTION "billing_lease_close"(p_id uuid, p_admitted integer, p_admitted_nano bigint)
RETURNS TABLE (o_status text, o_released bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_l "leases"%ROWTYPE;
  v_release bigint;
  v_done boolean;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT * INTO v_l FROM "leases" WHERE "id" = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not-found'::text, 0::bigint;
    RETURN;
  END IF;
  IF v_l."status" <> 'OPEN' THEN
    RETURN QUERY SELECT CASE WHEN v_l."status" = 'CLOSED' THEN 'already-closed' ELSE 'closing' END, 0::bigint;
    RETURN;
  END IF;
  v_done := v_l."settled_count" >= p_admitted;
  v_release := CASE WHEN v_done THEN v_l."held_nano"
                    ELSE least(v_l."held_nano", greatest(v_l."held_nano" - greatest(p_admitted_nano - v_l."settled_held_nano", 0), 0)) END;
  PERFORM "billing_lease_release"(v_l, v_release);
  UPDATE "leases" SET
    "admitted_count" = p_admitted,
    "admitted_nano" = p_admitted_nano,
    "status" = CASE WHEN v_done THEN 'CLOSED' ELSE 'CLOSING' END::"lease_status",
    "closed_at" = CASE WHEN v_done THEN now() END
  WHERE "id" = p_id;
  RETURN QUERY SELECT CASE WHEN v_done THEN 'closed' ELSE 'closing' END, v_release;
END
$$;

-- For the sweeper: a lease past its expiry plus the settle grace (its gateway died, or some of its
-- settlements never came) returns everything it still holds and is CLOSED. 'skipped' when it was
-- closed meanwhile or is not due. Settlements arriving later are charged as late ones.
CREATE FUNCTION "billing_lease_expire"(p_id uuid, p_grace_ms integer)
RETURNS TABLE (o_status text, o_released bigint, o_settled integer, o_admitted integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_l "leases"%ROWTYPE;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT * INTO v_l FROM "leases" WHERE "id" = p_id FOR UPDATE;
  IF NOT FOUND OR v_l."status" = 'CLOSED' OR v_l."expires_at" + p_grace_ms * interval '1 millisecond' > now() THEN
    RETURN QUERY SELECT 'skipped'::text, 0::bigint, v_l."settled_count", v_l."admitted_count";
    RETURN;
  END IF;
  PERFORM "billing_lease_release"(v_l, v_l."held_nano");
  UPDATE "leases" SET "status" = 'CLOSED', "closed_at" = now() WHERE "id" = p_id;
  RETURN QUERY SELECT 'expired'::text, v_l."held_nano", v_l."settled_count", v_l."admitted_count";
END
$$;

-- Writes what billing_settle_leased accumulated for one lease: the lease, its account (once per
-- lease, not once per request), the key window's deltas and one RELEASE entry for what the lease
-- returned to the account.
CREATE FUNCTION "billing_lease_write"(p_lease "leases", p_acc "billing_accounts", p_key_held bigint, p_key_used bigint, p_release bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "leases" SET
    "held_nano" = p_lease."held_nano",
    "charged_nano" = p_lease."charged_nano",
    "released_nano" = p_lease."released_nano",
    "settled_held_nano" = p_lease."settled_held_nano",
    "settled_count" = p_lease."settled_count",
    "status" = p_lease."status",
    "closed_at" = p_lease."closed_at"
  WHERE "id" = p_lease."id";
  UPDATE "billing_accounts" SET
    "balance_usd_nano" = p_acc."balance_usd_nano",
    "held_usd_nano" = p_acc."held_usd_nano",
    "diem_epoch" = p_acc."diem_epoch",
    "diem_used_nano" = p_acc."diem_used_nano",
    "diem_held_nano" = p_acc."diem_held_nano",
    "updated_at" = now()
  WHERE "id" = p_acc."id";
  IF p_lease."key_period" IS NOT NULL AND (p_key_held <> 0 OR p_key_used <> 0) THEN
    UPDATE "key_usage" SET
      "held_usd_nano" = "held_usd_nano" + CASE WHEN p_lease."currency" = 'USD' THEN p_key_held ELSE 0 END,
      "held_diem_nano" = "held_diem_nano" + CASE WHEN p_lease."currency" = 'DIEM' THEN p_key_held ELSE 0 END,
      "used_usd_nano" = "used_usd_nano" + CASE WHEN p_lease."currency" = 'USD' THEN p_key_used ELSE 0 END,
      "used_diem_nano" = "used_diem_nano" + CASE WHEN p_lease."currency" = 'DIEM' THEN p_key_used ELSE 0 END
    WHERE "api_key_id" = p_lease."api_key_id" AND "period" = p_lease."key_period";
  END IF;
  IF p_release > 0 THEN
    INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "epoch", "reservation_id")
    VALUES (p_lease."account_id", p_lease."currency", 'RELEASE', -p_release, CASE WHEN p_lease."currency" = 'DIEM' THEN p_lease."epoch" END, p_lease."id");
  END IF;
END
$$;

-- A ledger entry as a value, for functions that collect entries and write them in one statement
-- (DIEM entries carry their epoch, USD ones none).
CREATE TYPE "billing_entry" AS ("account_id" uuid, "currency" "currency", "kind" "ledger_kind", "amount_nano" bigint, "epoch" date, "reservation_id" uuid);
CREATE FUNCTION "billing_entry"(p_account uuid, p_currency "currency", p_kind "ledger_kind", p_amount bigint, p_epoch date, p_reservation uuid)
RETURNS "billing_entry" LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(p_account, p_currency, p_kind, p_amount, CASE WHEN p_currency = 'DIEM' THEN p_epoch END, p_reservation)::"billing_entry"
$$;

-- Settles a batch of requests admitted under leases, in one transaction. Each item (see
-- LeasesRepository.settleLeased) becomes a child reservation of its lease, created final:
--   - lease OPEN or CLOSING: charged from the lease's hold, at most the child's own hold h;
--     under a CLOSING lease the child's unused part is released at once, and the whole rest when
--     the last admitted request has settled (the lease is then CLOSED);
--   - lease CLOSED (a late settlement): charged from what the account has available, never
--     below zero and never more than h; the rest is uncollected;
--   - a gateway fallback (a cut or broken stream, the gateway's own count) under an OPEN or
--     CLOSING lease: the child's hold moves out of the lease into a HELD child with the fallback,
--     which the service's settlement or the sweeper finalizes as any reservation ('fallback-recorded');
--   - a child that exists already: 'already-final', except a RELEASED one that now gets a
--     SERVICE charge (charged as a late settlement, as billing_settle does), and a HELD one (a
--     fallback), which the caller settles with billing_settle ('deferred');
--   - an unknown lease, or a currency other than the lease's: 'not-found', nothing changes.
-- Each lease, its account and its key window are written once per batch, not once per request.
-- o_over_hold: what the usage cost beyond the child's hold (never charged; the caller logs it).
-- Commits synchronously (the server's setting): an acknowledged charge is durable.
CREATE FUNCTION "billing_settle_leased"(p_items jsonb, p_grace_ms integer)
RETURNS TABLE (o_index integer, o_id uuid, o_status text, o_currency "currency", o_charged bigint, o_over_hold bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := now();
  v_today date := (now() AT TIME ZONE 'UTC')::date;
  r record;
  v_l "leases"%ROWTYPE;
  v_acc "billing_accounts"%ROWTYPE;
  v_r "reservations"%ROWTYPE;
  v_group uuid;
  v_have boolean := false;
  v_dirty boolean := false;
  v_same_epoch boolean;
  v_key_held bigint := 0;
  v_key_used bigint := 0;
  v_release bigint := 0;
  v_new boolean;
  v_closing boolean;
  v_mode text;
  v_held bigint;
  v_charge bigint;
  v_amount bigint;
  v_child_key uuid;
  -- Written at the end, in one statement each: the children's ledger entries, and the items whose
  -- usage lines are recorded (index in p_items, what was charged, account, key, currency).
  v_entries "billing_entry"[] := '{}';
  u_index integer[] := '{}';
  u_charge bigint[] := '{}';
  u_account uuid[] := '{}';
  u_key uuid[] := '{}';
  u_currency "currency"[] := '{}';
BEGIN
  -- Every lease of the batch, then every account, each in id order, before anything is written.
  PERFORM 1 FROM "leases" WHERE "id" IN (SELECT (e->>'lease_id')::uuid FROM jsonb_array_elements(p_items) e) ORDER BY "id" FOR UPDATE;
  PERFORM 1 FROM "billing_accounts"
    WHERE "id" IN (SELECT l."account_id" FROM "leases" l WHERE l."id" IN (SELECT (e->>'lease_id')::uuid FROM jsonb_array_elements(p_items) e))
    ORDER BY "id" FOR UPDATE;

  -- Grouped by lease; of two items for one child, one that charges comes first.
  FOR r IN
    SELECT (x."ordinality" - 1)::integer AS idx, x.*
    FROM ROWS FROM (jsonb_to_recordset(p_items) AS (
      "id" uuid, "lease_id" uuid, "api_key_id" uuid, "currency" "currency", "request_id" varchar, "model_id" varchar, "model_name" varchar,
      "model_type" varchar, "pricing" jsonb, "worst_case" jsonb, "held" bigint, "charge" bigint, "source" "settle_source", "outcome" varchar,
      "fallback" jsonb, "prompt_tokens" integer, "completion_tokens" integer, "execution_ms" integer)) WITH ORDINALITY AS x
    ORDER BY x."lease_id", x."id", (x."charge" > 0) DESC, x."ordinality"
  LOOP
    IF v_group IS DISTINCT FROM r."lease_id" THEN
      IF v_dirty THEN
        PERFORM "billing_lease_write"(v_l, v_acc, v_key_held, v_key_used, v_release);
      END IF;
      v_group := r."lease_id";
      v_dirty := false;
      v_key_held := 0;
      v_key_used := 0;
      v_release := 0;
      SELECT * INTO v_l FROM "leases" WHERE "id" = r."lease_id";
      v_have := FOUND;
      IF v_have THEN
        SELECT * INTO v_acc FROM "billing_accounts" WHERE "id" = v_l."account_id";
        IF v_acc."diem_epoch" <> v_today THEN
          v_acc."diem_epoch" := v_today;
          v_acc."diem_used_nano" := 0;
          v_acc."diem_held_nano" := 0;
        END IF;
        v_same_epoch := v_l."epoch" = v_acc."diem_epoch";
      END IF;
    END IF;

    o_index := r.idx;
    o_id := r."id";
    o_over_hold := 0;
    IF NOT v_have OR r."currency" <> v_l."currency" THEN
      o_status := 'not-found';
      o_currency := NULL;
      o_charged := 0;
      RETURN NEXT;
      CONTINUE;
    END IF;

    -- What this item is: a new child (settled from the lease, late, or a fallback), or one seen before.
    SELECT * INTO v_r FROM "reservations" WHERE "id" = r."id";
    v_new := NOT FOUND;
    IF v_new THEN
      v_held := r."held";
      v_mode := CASE WHEN v_l."status" = 'CLOSED' THEN 'late' WHEN r."fallback" IS NOT NULL AND r."source" = 'GATEWAY' THEN 'fallback' ELSE 'lease' END;
      -- The usage of a lease for a limited key counts against that key; else the request's own key.
      v_child_key := CASE WHEN v_l."key_period" IS NOT NULL THEN v_l."api_key_id" ELSE coalesce(r."api_key_id", v_l."api_key_id") END;
    ELSE
      o_currency := v_r."currency";
      o_charged := v_r."charged_nano";
      IF v_r."status" = 'HELD' THEN
        o_status := 'deferred';
        o_charged := 0;
        RETURN NEXT;
        CONTINUE;
      ELSIF NOT (v_r."status" = 'RELEASED' AND r."charge" > 0 AND r."source" = 'SERVICE' AND v_r."lease_id" = v_l."id") THEN
        o_status := 'already-final';
        RETURN NEXT;
        CONTINUE;
      END IF;
      -- Released first, charged now: a late settlement, as billing_settle makes it.
      v_held := v_r."held_nano";
      v_mode := 'late';
      v_child_key := v_r."api_key_id";
    END IF;

    IF v_mode = 'fallback' THEN
      v_amount := least(v_held, v_l."held_nano");
      v_charge := 0;
    ELSIF v_mode = 'lease' THEN
      v_charge := least(r."charge", v_held, v_l."held_nano");
    ELSE
      -- Late: what the account can pay now. A DIEM lease of a past epoch has nothing left to pay from.
      v_charge := greatest(least(r."charge", v_held,
        CASE WHEN v_l."currency" = 'USD' THEN v_acc."balance_usd_nano" - v_acc."held_usd_nano"
             WHEN v_same_epoch THEN greatest(v_acc."diem_stake_nano" - v_acc."diem_used_nano" - v_acc."diem_held_nano", 0)
             ELSE 0 END), 0);
    END IF;

    IF v_new THEN
      INSERT INTO "reservations" ("id", "account_id", "api_key_id", "request_id", "model_id", "model_name", "model_type", "pricing", "worst_case",
                                  "currency", "held_nano", "epoch", "key_period", "status", "fallback", "charged_nano", "uncollected_nano",
                                  "settled_by", "outcome", "expires_at", "finalized_at", "lease_id")
      VALUES (r."id", v_l."account_id", v_child_key, r."request_id", r."model_id", r."model_name", r."model_type", r."pricing", r."worst_case",
              v_l."currency", CASE WHEN v_mode = 'fallback' THEN v_amount ELSE v_held END, v_l."epoch", v_l."key_period",
              (CASE WHEN v_mode = 'fallback' THEN 'HELD' WHEN r."charge" > 0 THEN 'SETTLED' ELSE 'RELEASED' END)::"reservation_status",
              CASE WHEN v_mode = 'fallback' THEN r."fallback" END, v_charge, CASE WHEN v_mode = 'fallback' THEN 0 ELSE r."charge" - v_charge END,
              CASE WHEN v_mode <> 'fallback' THEN r."source" END, CASE WHEN v_mode <> 'fallback' THEN r."outcome" END,
              CASE WHEN v_mode = 'fallback' THEN v_now + p_grace_ms * interval '1 millisecond' ELSE v_l."expires_at" END,
              CASE WHEN v_mode <> 'fallback' THEN v_now END, v_l."id");
      v_l."settled_count" := v_l."settled_count" + 1;
      v_l."settled_held_nano" := v_l."settled_held_nano" + v_held;
    ELSE
      UPDATE "reservations" SET
        "status" = 'SETTLED', "charged_nano" = v_charge, "uncollected_nano" = r."charge" - v_charge,
        "settled_by" = 'SERVICE', "outcome" = r."outcome", "finalized_at" = v_now
      WHERE "id" = r."id" AND "status" = 'RELEASED';
      IF NOT FOUND THEN
        o_status := 'already-final';
        RETURN NEXT;
        CONTINUE;
      END IF;
    END IF;
    v_dirty := true;

    IF v_mode = 'fallback' THEN
      -- The hold moves from the lease to the child: a RELEASE and a HOLD, nothing changes on the account or the key.
      v_l."held_nano" := v_l."held_nano" - v_amount;
      v_l."released_nano" := v_l."released_nano" + v_amount;
      v_entries := v_entries || "billing_entry"(v_l."account_id", v_l."currency", 'RELEASE', -v_amount, v_l."epoch", v_l."id")
                             || "billing_entry"(v_l."account_id", v_l."currency", 'HOLD', v_amount, v_l."epoch", r."id");
    ELSIF v_charge > 0 THEN
      IF v_mode = 'lease' THEN
        -- Paid from the lease's hold: the hold shrinks by the charge.
        v_l."held_nano" := v_l."held_nano" - v_charge;
        v_l."charged_nano" := v_l."charged_nano" + v_charge;
        IF v_l."currency" = 'USD' THEN
          v_acc."held_usd_nano" := v_acc."held_usd_nano" - v_charge;
        ELSIF v_same_epoch THEN
          v_acc."diem_held_nano" := v_acc."diem_held_nano" - v_charge;
        END IF;
        v_key_held := v_key_held - v_charge;
        v_entries := v_entries || "billing_entry"(v_l."account_id", v_l."currency", 'RELEASE', -v_charge, v_l."epoch", r."id");
      END IF;
      IF v_l."currency" = 'USD' THEN
        v_acc."balance_usd_nano" := v_acc."balance_usd_nano" - v_charge;
      ELSIF v_same_epoch THEN
        v_acc."diem_used_nano" := v_acc."diem_used_nano" + v_charge;
      END IF;
      v_key_used := v_key_used + v_charge;
      v_entries := v_entries || "billing_entry"(v_l."account_id", v_l."currency", 'CHARGE', -v_charge, v_l."epoch", r."id");
    END IF;
    IF v_mode <> 'fallback' THEN
      u_index := u_index || r.idx;
      u_charge := u_charge || v_charge;
      u_account := u_account || v_l."account_id";
      u_key := u_key || v_child_key;
      u_currency := u_currency || v_l."currency";
    END IF;

    -- The gateway is done with a CLOSING lease: what this child did not use goes back now, and
    -- everything once the last admitted request has settled.
    IF v_new AND v_l."status" = 'CLOSING' THEN
      IF v_l."settled_count" >= v_l."admitted_count" THEN
        v_amount := v_l."held_nano";
        v_l."status" := 'CLOSED';
        v_l."closed_at" := v_now;
      ELSE
        v_amount := least(CASE WHEN v_mode = 'fallback' THEN 0 ELSE v_held - v_charge END, v_l."held_nano");
      END IF;
      IF v_amount > 0 THEN
        v_l."held_nano" := v_l."held_nano" - v_amount;
        v_l."released_nano" := v_l."released_nano" + v_amount;
        v_release := v_release + v_amount;
        IF v_l."currency" = 'USD' THEN
          v_acc."held_usd_nano" := v_acc."held_usd_nano" - v_amount;
        ELSIF v_same_epoch THEN
          v_acc."diem_held_nano" := v_acc."diem_held_nano" - v_amount;
        END IF;
        v_key_held := v_key_held - v_amount;
      END IF;
    END IF;

    o_currency := CASE WHEN v_mode <> 'fallback' THEN v_l."currency" END;
    o_charged := v_charge;
    o_status := CASE WHEN v_mode = 'fallback' THEN 'fallback-recorded' WHEN r."charge" > 0 THEN 'settled' ELSE 'released' END;
    o_over_hold := CASE WHEN v_mode = 'fallback' THEN 0 ELSE greatest(r."charge" - v_held, 0) END;
    RETURN NEXT;
  END LOOP;
  IF v_dirty THEN
    PERFORM "billing_lease_write"(v_l, v_acc, v_key_held, v_key_used, v_release);
  END IF;

  INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "epoch", "reservation_id")
  SELECT e."account_id", e."currency", e."kind", e."amount_nano", e."epoch", e."reservation_id" FROM unnest(v_entries) AS e;

  -- Usage lines exactly as billing_settle writes them: capped in order so they add up to what was charged.
  INSERT INTO "usage_entries" ("account_id", "api_key_id", "reservation_id", "request_id", "model_id", "model_name", "model_type", "line_type", "sku", "unit_type",
                               "quantity", "per_sku_unit", "unit_price_usd_nano", "currency", "amount_nano", "prompt_tokens", "completion_tokens", "execution_ms")
  SELECT u."account", u."key", (i.item->>'id')::uuid, i.item->>'request_id', i.item->>'model_id', i.item->>'model_name', i.item->>'model_type',
         l.line->>'type', l.line->>'sku', l.line->>'unitType', (l.line->>'quantity')::bigint, (l.line->>'perSkuUnit')::integer, (l.line->>'unitPriceUsd')::bigint, u."currency",
         least((l.line->>'amount')::bigint, greatest(u."charge" - (sum((l.line->>'amount')::bigint) OVER (PARTITION BY u."idx" ORDER BY l.ord) - (l.line->>'amount')::bigint), 0)),
         (i.item->>'prompt_tokens')::integer, (i.item->>'completion_tokens')::integer, (i.item->>'execution_ms')::integer
  FROM unnest(u_index, u_charge, u_account, u_key, u_currency) AS u("idx", "charge", "account", "key", "currency")
  CROSS JOIN LATERAL (SELECT p_items->u."idx" AS item) AS i
  CROSS JOIN LATERAL jsonb_array_elements(i.item->'lines') WITH ORDINALITY AS l(line, ord)
  ORDER BY u."idx", l.ord;
END
$$;
