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
