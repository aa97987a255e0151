-- A settlement outranks a refusal. Two attempts at the same payment can overlap (the wallet
-- service's resumer on two replicas, say): one settles it on chain while the other, refused by
-- the facilitator because the nonce is now spent, marks it FAILED first. The transaction proves
-- the funds moved, so billing_x402_settled now also takes a FAILED payment to SETTLED (and the
-- credit follows); before, that payment stayed FAILED and uncredited.
CREATE OR REPLACE FUNCTION "billing_x402_settled"(p_reference varchar, p_transaction varchar)
RETURNS TABLE (o_status "x402_payment_status")
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "x402_payments" SET "status" = 'SETTLED', "transaction" = p_transaction, "failure" = NULL, "updated_at" = now()
  WHERE "reference" = p_reference AND "status" IN ('PENDING', 'FAILED');
  RETURN QUERY SELECT "status" FROM "x402_payments" WHERE "reference" = p_reference;
END
$$;
