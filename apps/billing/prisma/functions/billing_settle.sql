-- Finalizes one reservation: releases its hold and charges `p_charge` (0: nothing produced, a
-- pure release). Idempotent: a finalized reservation answers 'already-final' and changes nothing.
-- A settlement arriving after the hold was released (late) still charges, from what the account
-- has left: never below zero; the rest is recorded as uncollected. Usage lines are capped in
-- order so they add up to what was charged.
-- Commits without waiting for the WAL flush, so the account row lock is never held across an
-- fsync (the next reservation of the account would wait for it). The caller makes a charge
-- durable before acknowledging it with a flush barrier: a later synchronous commit (see
-- ReservationsRepository.settle). A lost release only brings the hold back for the sweeper.
-- Never charges more than the hold: the excess is recorded as uncollected and returned as
-- o_over_hold (the service logs it as an error). What the client did not receive is never charged: a
-- hold the gateway released is not charged late by a service, and a request a service charged that
-- the gateway then reports failed is refunded (billing_refund_undelivered).
CREATE FUNCTION "billing_settle"(
  p_id uuid, p_source "settle_source", p_outcome varchar, p_charge bigint, p_lines jsonb,
  p_prompt_tokens integer, p_completion_tokens integer, p_execution_ms integer
) RETURNS TABLE (o_status text, o_currency "currency", o_charged bigint, o_over_hold bigint)
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
    RETURN QUERY SELECT 'not-found'::text, NULL::"currency", 0::bigint, 0::bigint;
    RETURN;
  END IF;
  -- The gateway answered the client with an error after the service charged: nothing reached the
  -- client, so nothing is charged.
  IF v_r."status" = 'SETTLED' AND v_r."settled_by" = 'SERVICE' AND p_source = 'GATEWAY' AND p_outcome = 'failed' AND p_charge = 0 THEN
    RETURN QUERY SELECT * FROM "billing_refund_undelivered"(v_r);
    RETURN;
  END IF;
  -- Final: a settled request; a released one unless a service charges it late. A hold the gateway
  -- released because the client got an error is never charged late: the answer did not reach it.
  IF v_r."status" = 'SETTLED'
     OR (v_r."status" = 'RELEASED' AND (p_charge = 0 OR p_source = 'GATEWAY' OR v_r."settled_by" = 'GATEWAY')) THEN
    RETURN QUERY SELECT 'already-final'::text, v_r."currency", v_r."charged_nano", 0::bigint;
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
  -- Never more than the hold: the hold is the most this request was admitted to spend.
  v_charge := least(p_charge, v_r."held_nano", v_avail);

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
  RETURN QUERY SELECT CASE WHEN p_charge > 0 THEN 'settled' ELSE 'released' END, v_r."currency", v_charge, greatest(p_charge - v_r."held_nano", 0);
END
$$;
