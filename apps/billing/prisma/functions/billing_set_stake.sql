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
