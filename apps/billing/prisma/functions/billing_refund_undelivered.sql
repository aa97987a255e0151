-- Refunds in full a request a service charged and the gateway then reported failed (what the client
-- did not receive is never charged): a REFUND ledger entry, the key's window and the account given
-- back what was charged (DIEM only within its epoch), its usage lines zeroed, the reservation
-- RELEASED with outcome `undelivered`. For billing_settle and billing_settle_leased.
CREATE FUNCTION "billing_refund_undelivered"(p_r "reservations")
RETURNS TABLE (o_status text, o_currency "currency", o_charged bigint, o_over_hold bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_today date := (now() AT TIME ZONE 'UTC')::date;
  v_acc "billing_accounts"%ROWTYPE;
  v_refund bigint := p_r."charged_nano";
BEGIN
  SELECT * INTO v_acc FROM "billing_accounts" WHERE "id" = p_r."account_id" FOR UPDATE;
  IF v_refund > 0 THEN
    IF p_r."currency" = 'USD' THEN
      UPDATE "billing_accounts" SET "balance_usd_nano" = "balance_usd_nano" + v_refund, "updated_at" = now() WHERE "id" = v_acc."id";
    ELSIF p_r."epoch" = v_acc."diem_epoch" AND v_acc."diem_epoch" = v_today THEN
      -- DIEM of the current epoch comes back; a past epoch's allocation is gone either way.
      UPDATE "billing_accounts" SET "diem_used_nano" = greatest("diem_used_nano" - v_refund, 0), "updated_at" = now() WHERE "id" = v_acc."id";
    ELSE
      v_refund := 0;
    END IF;
  END IF;
  IF v_refund > 0 THEN
    INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "epoch", "reservation_id")
    VALUES (p_r."account_id", p_r."currency", 'REFUND', v_refund, CASE WHEN p_r."currency" = 'DIEM' THEN p_r."epoch" END, p_r."id");
    IF p_r."key_period" IS NOT NULL THEN
      UPDATE "key_usage" SET
        "used_usd_nano" = greatest("used_usd_nano" - CASE WHEN p_r."currency" = 'USD' THEN v_refund ELSE 0 END, 0),
        "used_diem_nano" = greatest("used_diem_nano" - CASE WHEN p_r."currency" = 'DIEM' THEN v_refund ELSE 0 END, 0)
      WHERE "api_key_id" = p_r."api_key_id" AND "period" = p_r."key_period";
    END IF;
  END IF;
  UPDATE "usage_entries" SET "amount_nano" = 0 WHERE "reservation_id" = p_r."id";
  UPDATE "reservations" SET
    "status" = 'RELEASED', "charged_nano" = 0, "uncollected_nano" = 0, "settled_by" = 'GATEWAY', "outcome" = 'undelivered', "finalized_at" = now()
  WHERE "id" = p_r."id";
  RETURN QUERY SELECT 'refunded'::text, p_r."currency", 0::bigint, 0::bigint;
END
$$;
