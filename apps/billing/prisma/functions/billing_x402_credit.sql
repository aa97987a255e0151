-- Credits a settled payment to its account, once ever: 'applied', 'duplicate' (credited before)
-- or 'not_settled'. The balance returned is the account's settled USD balance after it.
CREATE FUNCTION "billing_x402_credit"(p_reference varchar)
RETURNS TABLE (o_status text, o_id uuid, o_account uuid, o_wallet varchar, o_amount bigint, o_transaction varchar, o_balance bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_p "x402_payments"%ROWTYPE;
  v_balance bigint;
  v_adjusted text;
BEGIN
  SELECT * INTO v_p FROM "x402_payments" WHERE "reference" = p_reference FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'billing_x402_credit: no payment %', p_reference;
  END IF;
  IF v_p."status" = 'SETTLED' THEN
    SELECT a.o_status, a.o_balance INTO v_adjusted, v_balance
    FROM billing_adjust(v_p."account_id", 'CREDIT', v_p."amount_nano", left('x402 top-up on ' || v_p."network" || ', transaction ' || coalesce(v_p."transaction", '?'), 500), 'x402:' || v_p."id"::text) a;
    UPDATE "x402_payments" SET "status" = 'CREDITED', "credited_at" = now(), "updated_at" = now() WHERE "id" = v_p."id";
    RETURN QUERY SELECT CASE WHEN v_adjusted = 'applied' THEN 'applied' ELSE 'duplicate' END, v_p."id", v_p."account_id", v_p."wallet_address", v_p."amount_nano", v_p."transaction", v_balance;
    RETURN;
  END IF;
  SELECT "balance_usd_nano" INTO v_balance FROM "billing_accounts" WHERE "id" = v_p."account_id";
  RETURN QUERY SELECT CASE WHEN v_p."status" = 'CREDITED' THEN 'duplicate' ELSE 'not_settled' END, v_p."id", v_p."account_id", v_p."wallet_address", v_p."amount_nano", v_p."transaction", coalesce(v_balance, 0);
END
$$;
