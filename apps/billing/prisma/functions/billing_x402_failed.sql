-- The facilitator refused it: nothing was spent, the reference may be claimed again.
CREATE FUNCTION "billing_x402_failed"(p_reference varchar, p_reason varchar)
RETURNS TABLE (o_status "x402_payment_status")
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "x402_payments" SET "status" = 'FAILED', "failure" = left(p_reason, 500), "updated_at" = now()
  WHERE "reference" = p_reference AND "status" = 'PENDING';
  RETURN QUERY SELECT "status" FROM "x402_payments" WHERE "reference" = p_reference;
END
$$;
