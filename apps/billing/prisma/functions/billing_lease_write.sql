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
