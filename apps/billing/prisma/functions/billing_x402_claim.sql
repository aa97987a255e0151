-- Claims a payment before it is settled: a new reference, or one whose last attempt the
-- facilitator refused. Otherwise reports its state without claiming it.
CREATE FUNCTION "billing_x402_claim"(p_id uuid, p_reference varchar, p_account uuid, p_wallet varchar, p_network varchar, p_amount bigint, p_payment jsonb)
RETURNS TABLE (o_id uuid, o_status "x402_payment_status", o_claimed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_id uuid;
BEGIN
  INSERT INTO "x402_payments" ("id", "reference", "account_id", "wallet_address", "network", "amount_nano", "payment")
  VALUES (p_id, p_reference, p_account, p_wallet, p_network, p_amount, p_payment)
  ON CONFLICT ("reference") DO NOTHING
  RETURNING "id" INTO v_id;
  IF v_id IS NULL THEN
    UPDATE "x402_payments" SET "status" = 'PENDING', "account_id" = p_account, "wallet_address" = p_wallet, "amount_nano" = p_amount,
      "payment" = p_payment, "failure" = NULL, "attempts" = "attempts" + 1, "updated_at" = now()
    WHERE "reference" = p_reference AND "status" = 'FAILED'
    RETURNING "id" INTO v_id;
  END IF;
  IF v_id IS NOT NULL THEN
    RETURN QUERY SELECT v_id, 'PENDING'::"x402_payment_status", true;
    RETURN;
  END IF;
  RETURN QUERY SELECT "id", "status", false FROM "x402_payments" WHERE "reference" = p_reference;
END
$$;
