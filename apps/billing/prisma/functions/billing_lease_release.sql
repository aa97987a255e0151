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
