-- The facilitator settled it on chain: recorded before the credit, so a restart credits it. A FAILED
-- payment too: a settlement outranks a refusal (another attempt, refused because this one spent the
-- nonce, may have marked it FAILED first).
CREATE OR REPLACE FUNCTION "billing_x402_settled"(p_reference varchar, p_transaction varchar)
RETURNS TABLE (o_status "x402_payment_status")
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "x402_payments" SET "status" = 'SETTLED', "transaction" = p_transaction, "failure" = NULL, "updated_at" = now()
  WHERE "reference" = p_reference AND "status" IN ('PENDING', 'FAILED');
  RETURN QUERY SELECT "status" FROM "x402_payments" WHERE "reference" = p_reference;
END
$$;
