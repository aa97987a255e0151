-- CreateEnum
CREATE TYPE "currency" AS ENUM ('USD', 'DIEM');

-- CreateEnum
CREATE TYPE "consumption_order" AS ENUM ('DIEM_FIRST', 'USD_FIRST', 'USD_ONLY', 'DIEM_ONLY');

-- CreateEnum
CREATE TYPE "ledger_kind" AS ENUM ('CREDIT', 'DEBIT', 'HOLD', 'RELEASE', 'CHARGE', 'STAKE');

-- CreateEnum
CREATE TYPE "reservation_status" AS ENUM ('HELD', 'SETTLED', 'RELEASED');

-- CreateEnum
CREATE TYPE "settle_source" AS ENUM ('SERVICE', 'GATEWAY', 'SWEEPER');

-- CreateTable
CREATE TABLE "billing_accounts" (
    "id" UUID NOT NULL,
    "balance_usd_nano" BIGINT NOT NULL DEFAULT 0,
    "held_usd_nano" BIGINT NOT NULL DEFAULT 0,
    "diem_stake_nano" BIGINT NOT NULL DEFAULT 0,
    "diem_epoch" DATE NOT NULL,
    "diem_used_nano" BIGINT NOT NULL DEFAULT 0,
    "diem_held_nano" BIGINT NOT NULL DEFAULT 0,
    "consumption_order" "consumption_order" NOT NULL DEFAULT 'DIEM_FIRST',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "billing_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "currency" "currency" NOT NULL,
    "kind" "ledger_kind" NOT NULL,
    "amount_nano" BIGINT NOT NULL,
    "epoch" DATE,
    "reservation_id" UUID,
    "reason" VARCHAR(500),
    "idempotency_key" VARCHAR(200),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reservations" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "api_key_id" UUID,
    "request_id" VARCHAR(64) NOT NULL,
    "model_id" VARCHAR(200) NOT NULL,
    "model_name" VARCHAR(200) NOT NULL,
    "model_type" VARCHAR(32) NOT NULL,
    "pricing" JSONB NOT NULL,
    "worst_case" JSONB NOT NULL,
    "currency" "currency" NOT NULL,
    "held_nano" BIGINT NOT NULL,
    "epoch" DATE NOT NULL,
    "key_period" VARCHAR(16),
    "status" "reservation_status" NOT NULL DEFAULT 'HELD',
    "fallback" JSONB,
    "charged_nano" BIGINT NOT NULL DEFAULT 0,
    "uncollected_nano" BIGINT NOT NULL DEFAULT 0,
    "settled_by" "settle_source",
    "outcome" VARCHAR(16),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "finalized_at" TIMESTAMPTZ(3),
    "swept_at" TIMESTAMPTZ(3),

    CONSTRAINT "reservations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_entries" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "api_key_id" UUID,
    "reservation_id" UUID NOT NULL,
    "request_id" VARCHAR(64) NOT NULL,
    "model_id" VARCHAR(200) NOT NULL,
    "model_name" VARCHAR(200) NOT NULL,
    "model_type" VARCHAR(32) NOT NULL,
    "line_type" VARCHAR(32) NOT NULL,
    "sku" VARCHAR(255) NOT NULL,
    "unit_type" VARCHAR(16) NOT NULL,
    "quantity" BIGINT NOT NULL,
    "per_sku_unit" INTEGER NOT NULL,
    "unit_price_usd_nano" BIGINT NOT NULL,
    "currency" "currency" NOT NULL,
    "amount_nano" BIGINT NOT NULL,
    "prompt_tokens" INTEGER,
    "completion_tokens" INTEGER,
    "execution_ms" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "key_usage" (
    "api_key_id" UUID NOT NULL,
    "period" VARCHAR(16) NOT NULL,
    "used_usd_nano" BIGINT NOT NULL DEFAULT 0,
    "used_diem_nano" BIGINT NOT NULL DEFAULT 0,
    "held_usd_nano" BIGINT NOT NULL DEFAULT 0,
    "held_diem_nano" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "key_usage_pkey" PRIMARY KEY ("api_key_id","period")
);

-- CreateTable
CREATE TABLE "billing_secrets" (
    "name" VARCHAR(64) NOT NULL,
    "value" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "billing_secrets_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_idempotency_key_key" ON "ledger_entries"("idempotency_key");

-- CreateIndex
CREATE INDEX "ledger_entries_account_id_id_idx" ON "ledger_entries"("account_id", "id");

-- CreateIndex
CREATE INDEX "reservations_status_expires_at_idx" ON "reservations"("status", "expires_at");

-- CreateIndex
CREATE INDEX "reservations_account_id_created_at_idx" ON "reservations"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "usage_entries_account_id_created_at_id_idx" ON "usage_entries"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "usage_entries_account_id_api_key_id_created_at_idx" ON "usage_entries"("account_id", "api_key_id", "created_at");

-- =============================================================================================
-- Written by hand below: what Prisma's schema cannot express. Keep in step with
-- apps/billing/src/reservations/reservations.repository.ts and accounts.repository.ts.
-- =============================================================================================

-- Safety nets behind the functions' own checks: an account never owes, a hold is always backed.
ALTER TABLE "billing_accounts" ADD CONSTRAINT "billing_accounts_usd_covered" CHECK ("held_usd_nano" >= 0 AND "balance_usd_nano" >= "held_usd_nano");
ALTER TABLE "billing_accounts" ADD CONSTRAINT "billing_accounts_diem_non_negative" CHECK ("diem_stake_nano" >= 0 AND "diem_used_nano" >= 0 AND "diem_held_nano" >= 0);
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_amounts_non_negative" CHECK ("held_nano" >= 0 AND "charged_nano" >= 0 AND "uncollected_nano" >= 0);
ALTER TABLE "key_usage" ADD CONSTRAINT "key_usage_non_negative" CHECK ("used_usd_nano" >= 0 AND "used_diem_nano" >= 0 AND "held_usd_nano" >= 0 AND "held_diem_nano" >= 0);
ALTER TABLE "usage_entries" ADD CONSTRAINT "usage_entries_amount_non_negative" CHECK ("amount_nano" >= 0 AND "quantity" >= 0);

-- The ledger is append-only: corrections are new entries, never edits.
CREATE FUNCTION "ledger_entries_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only: add a correcting entry instead';
END
$$;
CREATE TRIGGER "ledger_entries_append_only" BEFORE UPDATE OR DELETE ON "ledger_entries"
  FOR EACH ROW EXECUTE FUNCTION "ledger_entries_append_only"();

-- The key_usage window of a limit period on a UTC day: D:YYYY-MM-DD, M:YYYY-MM or L.
CREATE FUNCTION "billing_period_key"(p_period text, p_day date) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_period WHEN 'EPOCH' THEN 'D:' || to_char(p_day, 'YYYY-MM-DD') WHEN 'MONTH' THEN 'M:' || to_char(p_day, 'YYYY-MM') ELSE 'L' END
$$;

-- Holds the worst-case cost of one request, or says why not, in one round trip. The account row
-- lock serializes reservations of one account, so concurrent requests can never together hold
-- more than the balance (or more than a key's limit: its key_usage row is locked after it).
-- Lock order everywhere: reservation, then account, then key_usage.
-- Unless p_durable, the hold commits without waiting for the WAL flush (synchronous_commit off
-- for this transaction only): admission does not wait on the disk. A crash of Postgres can lose
-- the holds of the last few hundred milliseconds that no charge has followed yet (a charge's own
-- synchronous commit flushes every earlier record); see docs/billing.md.
CREATE FUNCTION "billing_reserve"(
  p_id uuid, p_account uuid, p_key uuid, p_request varchar,
  p_cost_usd bigint, p_cost_diem bigint,
  p_limit_usd bigint, p_limit_diem bigint, p_limit_period text,
  p_model_id varchar, p_model_name varchar, p_model_type varchar,
  p_pricing jsonb, p_worst_case jsonb, p_ttl_ms integer, p_durable boolean
) RETURNS TABLE (o_outcome text, o_currency "currency", o_held bigint, o_usd_available bigint, o_diem_available bigint, o_key_used_usd bigint, o_key_used_diem bigint,
                o_order "consumption_order", o_diem_stake bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_today date := (now() AT TIME ZONE 'UTC')::date;
  v_acc "billing_accounts"%ROWTYPE;
  v_prev "reservations"%ROWTYPE;
  v_ku "key_usage"%ROWTYPE;
  v_period text;
  v_avail_usd bigint;
  v_avail_diem bigint;
  v_order "currency"[];
  v_c "currency";
  v_cost bigint;
  v_chosen "currency";
  v_key_blocked boolean := false;
  v_key_hold boolean := false;
BEGIN
  IF NOT p_durable THEN
    PERFORM set_config('synchronous_commit', 'off', true);
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

  -- A retried reservation gets its first answer back (checked under the account lock).
  SELECT * INTO v_prev FROM "reservations" WHERE "id" = p_id;
  IF FOUND THEN
    RETURN QUERY SELECT 'replay'::text, v_prev."currency", v_prev."held_nano", v_avail_usd, v_avail_diem, NULL::bigint, NULL::bigint, v_acc."consumption_order", v_acc."diem_stake_nano";
    RETURN;
  END IF;

  IF p_key IS NOT NULL AND (p_limit_usd IS NOT NULL OR p_limit_diem IS NOT NULL) THEN
    v_period := "billing_period_key"(p_limit_period, v_today);
    SELECT * INTO v_ku FROM "key_usage" WHERE "api_key_id" = p_key AND "period" = v_period FOR UPDATE;
    IF NOT FOUND THEN
      -- The first limited request of this window starts from what the key was charged in it so far.
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

  v_order := CASE v_acc."consumption_order"
    WHEN 'DIEM_FIRST' THEN ARRAY['DIEM', 'USD']::"currency"[]
    WHEN 'USD_FIRST' THEN ARRAY['USD', 'DIEM']::"currency"[]
    WHEN 'USD_ONLY' THEN ARRAY['USD']::"currency"[]
    ELSE ARRAY['DIEM']::"currency"[]
  END;
  FOREACH v_c IN ARRAY v_order LOOP
    IF v_c = 'USD' THEN
      v_cost := p_cost_usd;
      CONTINUE WHEN v_cost > v_avail_usd;
      IF p_limit_usd IS NOT NULL AND v_ku."used_usd_nano" + v_ku."held_usd_nano" + v_cost > p_limit_usd THEN
        v_key_blocked := true;
        CONTINUE;
      END IF;
      v_key_hold := p_limit_usd IS NOT NULL;
    ELSE
      -- An account that stakes nothing has no DIEM balance to draw from, not even for free requests.
      CONTINUE WHEN v_acc."diem_stake_nano" = 0;
      v_cost := p_cost_diem;
      CONTINUE WHEN v_cost > v_avail_diem;
      IF p_limit_diem IS NOT NULL AND v_ku."used_diem_nano" + v_ku."held_diem_nano" + v_cost > p_limit_diem THEN
        v_key_blocked := true;
        CONTINUE;
      END IF;
      v_key_hold := p_limit_diem IS NOT NULL;
    END IF;
    v_chosen := v_c;
    EXIT;
  END LOOP;

  IF v_chosen IS NULL THEN
    RETURN QUERY SELECT CASE WHEN v_key_blocked THEN 'key-limit' ELSE 'insufficient' END, NULL::"currency", NULL::bigint, v_avail_usd, v_avail_diem,
      coalesce(v_ku."used_usd_nano" + v_ku."held_usd_nano", 0::bigint), coalesce(v_ku."used_diem_nano" + v_ku."held_diem_nano", 0::bigint),
      v_acc."consumption_order", v_acc."diem_stake_nano";
    RETURN;
  END IF;

  UPDATE "billing_accounts" SET
    "held_usd_nano" = v_acc."held_usd_nano" + CASE WHEN v_chosen = 'USD' THEN v_cost ELSE 0 END,
    "diem_epoch" = v_acc."diem_epoch",
    "diem_used_nano" = v_acc."diem_used_nano",
    "diem_held_nano" = v_acc."diem_held_nano" + CASE WHEN v_chosen = 'DIEM' THEN v_cost ELSE 0 END,
    "updated_at" = now()
  WHERE "id" = p_account;
  IF v_key_hold THEN
    UPDATE "key_usage" SET
      "held_usd_nano" = "held_usd_nano" + CASE WHEN v_chosen = 'USD' THEN v_cost ELSE 0 END,
      "held_diem_nano" = "held_diem_nano" + CASE WHEN v_chosen = 'DIEM' THEN v_cost ELSE 0 END
    WHERE "api_key_id" = p_key AND "period" = v_period;
  END IF;
  INSERT INTO "reservations" ("id", "account_id", "api_key_id", "request_id", "model_id", "model_name", "model_type", "pricing", "worst_case", "currency", "held_nano", "epoch", "key_period", "expires_at")
  VALUES (p_id, p_account, p_key, p_request, p_model_id, p_model_name, p_model_type, p_pricing, p_worst_case, v_chosen, v_cost, v_today,
          CASE WHEN v_key_hold THEN v_period END, now() + p_ttl_ms * interval '1 millisecond');
  INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "epoch", "reservation_id")
  VALUES (p_account, v_chosen, 'HOLD', v_cost, CASE WHEN v_chosen = 'DIEM' THEN v_today END, p_id);
  RETURN QUERY SELECT 'reserved'::text, v_chosen, v_cost, v_avail_usd, v_avail_diem, NULL::bigint, NULL::bigint, v_acc."consumption_order", v_acc."diem_stake_nano";
END
$$;

-- Finalizes one reservation: releases its hold and charges `p_charge` (0: nothing produced, a
-- pure release). Idempotent: a finalized reservation answers 'already-final' and changes nothing.
-- A settlement arriving after the hold was released (late) still charges, from what the account
-- has left: never below zero; the rest is recorded as uncollected. Usage lines are capped in
-- order so they add up to what was charged.
-- Commits without waiting for the WAL flush, so the account row lock is never held across an
-- fsync (the next reservation of the account would wait for it). The caller makes a charge
-- durable before acknowledging it with a flush barrier: a later synchronous commit (see
-- ReservationsRepository.settle). A lost release only brings the hold back for the sweeper.
CREATE FUNCTION "billing_settle"(
  p_id uuid, p_source "settle_source", p_outcome varchar, p_charge bigint, p_lines jsonb,
  p_prompt_tokens integer, p_completion_tokens integer, p_execution_ms integer
) RETURNS TABLE (o_status text, o_currency "currency", o_charged bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_today date := (now() AT TIME ZONE 'UTC')::date;
  v_r "reservations"%ROWTYPE;
  v_acc "billing_accounts"%ROWTYPE;
  v_was_held boolean;
  v_same_epoch boolean;
  v_avail bigint;
  v_charge bigint;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT * INTO v_r FROM "reservations" WHERE "id" = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not-found'::text, NULL::"currency", 0::bigint;
    RETURN;
  END IF;
  IF v_r."status" = 'SETTLED' OR (v_r."status" = 'RELEASED' AND (p_charge = 0 OR p_source = 'GATEWAY')) THEN
    RETURN QUERY SELECT 'already-final'::text, v_r."currency", v_r."charged_nano";
    RETURN;
  END IF;
  v_was_held := v_r."status" = 'HELD';

  SELECT * INTO v_acc FROM "billing_accounts" WHERE "id" = v_r."account_id" FOR UPDATE;
  IF v_acc."diem_epoch" <> v_today THEN
    v_acc."diem_epoch" := v_today;
    v_acc."diem_used_nano" := 0;
    v_acc."diem_held_nano" := 0;
  END IF;
  v_same_epoch := v_r."epoch" = v_acc."diem_epoch";

  IF v_was_held THEN
    IF v_r."currency" = 'USD' THEN
      v_acc."held_usd_nano" := v_acc."held_usd_nano" - v_r."held_nano";
    ELSIF v_same_epoch THEN
      v_acc."diem_held_nano" := v_acc."diem_held_nano" - v_r."held_nano";
    END IF;
    INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "epoch", "reservation_id")
    VALUES (v_r."account_id", v_r."currency", 'RELEASE', -v_r."held_nano", CASE WHEN v_r."currency" = 'DIEM' THEN v_r."epoch" END, p_id);
  END IF;

  -- What the account can pay now, the released hold included. A DIEM hold of a past epoch is paid
  -- from that hold only: the past epoch's allocation is gone.
  IF v_r."currency" = 'USD' THEN
    v_avail := v_acc."balance_usd_nano" - v_acc."held_usd_nano";
  ELSIF v_same_epoch THEN
    v_avail := greatest(v_acc."diem_stake_nano" - v_acc."diem_used_nano" - v_acc."diem_held_nano", 0);
  ELSIF v_was_held THEN
    v_avail := v_r."held_nano";
  ELSE
    v_avail := 0;
  END IF;
  v_charge := least(p_charge, v_avail);

  IF v_charge > 0 THEN
    IF v_r."currency" = 'USD' THEN
      v_acc."balance_usd_nano" := v_acc."balance_usd_nano" - v_charge;
    ELSIF v_same_epoch THEN
      v_acc."diem_used_nano" := v_acc."diem_used_nano" + v_charge;
    END IF;
    INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "epoch", "reservation_id")
    VALUES (v_r."account_id", v_r."currency", 'CHARGE', -v_charge, CASE WHEN v_r."currency" = 'DIEM' THEN v_r."epoch" END, p_id);
  END IF;

  -- The limit window the reservation was held in: release its hold, count its charge.
  IF v_r."key_period" IS NOT NULL THEN
    UPDATE "key_usage" SET
      "held_usd_nano" = "held_usd_nano" - CASE WHEN v_was_held AND v_r."currency" = 'USD' THEN v_r."held_nano" ELSE 0 END,
      "held_diem_nano" = "held_diem_nano" - CASE WHEN v_was_held AND v_r."currency" = 'DIEM' THEN v_r."held_nano" ELSE 0 END,
      "used_usd_nano" = "used_usd_nano" + CASE WHEN v_r."currency" = 'USD' THEN v_charge ELSE 0 END,
      "used_diem_nano" = "used_diem_nano" + CASE WHEN v_r."currency" = 'DIEM' THEN v_charge ELSE 0 END
    WHERE "api_key_id" = v_r."api_key_id" AND "period" = v_r."key_period";
  END IF;

  INSERT INTO "usage_entries" ("account_id", "api_key_id", "reservation_id", "request_id", "model_id", "model_name", "model_type", "line_type", "sku", "unit_type",
                               "quantity", "per_sku_unit", "unit_price_usd_nano", "currency", "amount_nano", "prompt_tokens", "completion_tokens", "execution_ms")
  SELECT v_r."account_id", v_r."api_key_id", p_id, v_r."request_id", v_r."model_id", v_r."model_name", v_r."model_type", l.line->>'type', l.line->>'sku', l.line->>'unitType',
         (l.line->>'quantity')::bigint, (l.line->>'perSkuUnit')::integer, (l.line->>'unitPriceUsd')::bigint, v_r."currency",
         least((l.line->>'amount')::bigint, greatest(v_charge - (sum((l.line->>'amount')::bigint) OVER (ORDER BY l.ord) - (l.line->>'amount')::bigint), 0)),
         p_prompt_tokens, p_completion_tokens, p_execution_ms
  FROM jsonb_array_elements(p_lines) WITH ORDINALITY AS l(line, ord);

  UPDATE "billing_accounts" SET
    "balance_usd_nano" = v_acc."balance_usd_nano",
    "held_usd_nano" = v_acc."held_usd_nano",
    "diem_epoch" = v_acc."diem_epoch",
    "diem_used_nano" = v_acc."diem_used_nano",
    "diem_held_nano" = v_acc."diem_held_nano",
    "updated_at" = now()
  WHERE "id" = v_acc."id";
  UPDATE "reservations" SET
    "status" = CASE WHEN p_charge > 0 THEN 'SETTLED' ELSE 'RELEASED' END::"reservation_status",
    "charged_nano" = v_charge,
    "uncollected_nano" = p_charge - v_charge,
    "settled_by" = p_source,
    "outcome" = p_outcome,
    "finalized_at" = now()
  WHERE "id" = p_id;
  RETURN QUERY SELECT CASE WHEN p_charge > 0 THEN 'settled' ELSE 'released' END, v_r."currency", v_charge;
END
$$;

-- Operator credit or debit of USD (and the bootstrap credit). A debit never takes more than the
-- account has available; an idempotency key applies once ever.
CREATE FUNCTION "billing_adjust"(p_account uuid, p_kind "ledger_kind", p_amount bigint, p_reason varchar, p_idempotency varchar)
RETURNS TABLE (o_status text, o_balance bigint, o_available bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_acc "billing_accounts"%ROWTYPE;
  v_delta bigint := CASE WHEN p_kind = 'CREDIT' THEN p_amount ELSE -p_amount END;
BEGIN
  IF p_kind NOT IN ('CREDIT', 'DEBIT') OR p_amount <= 0 THEN
    RAISE EXCEPTION 'billing_adjust: a CREDIT or DEBIT of a positive amount';
  END IF;
  INSERT INTO "billing_accounts" ("id", "diem_epoch") VALUES (p_account, (now() AT TIME ZONE 'UTC')::date) ON CONFLICT ("id") DO NOTHING;
  SELECT * INTO v_acc FROM "billing_accounts" WHERE "id" = p_account FOR UPDATE;
  IF p_idempotency IS NOT NULL AND EXISTS (SELECT 1 FROM "ledger_entries" WHERE "idempotency_key" = p_idempotency) THEN
    RETURN QUERY SELECT 'duplicate'::text, v_acc."balance_usd_nano", v_acc."balance_usd_nano" - v_acc."held_usd_nano";
    RETURN;
  END IF;
  IF p_kind = 'DEBIT' AND p_amount > v_acc."balance_usd_nano" - v_acc."held_usd_nano" THEN
    RETURN QUERY SELECT 'insufficient'::text, v_acc."balance_usd_nano", v_acc."balance_usd_nano" - v_acc."held_usd_nano";
    RETURN;
  END IF;
  INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "reason", "idempotency_key")
  VALUES (p_account, 'USD', p_kind, v_delta, p_reason, p_idempotency);
  UPDATE "billing_accounts" SET "balance_usd_nano" = "balance_usd_nano" + v_delta, "updated_at" = now() WHERE "id" = p_account;
  RETURN QUERY SELECT 'applied'::text, v_acc."balance_usd_nano" + v_delta, v_acc."balance_usd_nano" + v_delta - v_acc."held_usd_nano";
END
$$;

-- Sets the DIEM stake (the allocation of every epoch, effective in the current one too).
CREATE FUNCTION "billing_set_stake"(p_account uuid, p_stake bigint, p_reason varchar)
RETURNS TABLE (o_previous bigint, o_stake bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_acc "billing_accounts"%ROWTYPE;
BEGIN
  IF p_stake < 0 THEN
    RAISE EXCEPTION 'billing_set_stake: the stake cannot be negative';
  END IF;
  INSERT INTO "billing_accounts" ("id", "diem_epoch") VALUES (p_account, (now() AT TIME ZONE 'UTC')::date) ON CONFLICT ("id") DO NOTHING;
  SELECT * INTO v_acc FROM "billing_accounts" WHERE "id" = p_account FOR UPDATE;
  IF p_stake <> v_acc."diem_stake_nano" THEN
    INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "reason")
    VALUES (p_account, 'DIEM', 'STAKE', p_stake - v_acc."diem_stake_nano", p_reason);
    UPDATE "billing_accounts" SET "diem_stake_nano" = p_stake, "updated_at" = now() WHERE "id" = p_account;
  END IF;
  RETURN QUERY SELECT v_acc."diem_stake_nano", p_stake;
END
$$;
