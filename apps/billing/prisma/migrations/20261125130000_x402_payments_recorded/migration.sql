-- x402 USDC top-ups (issue 20). A payment is recorded by its reference (network + payer + nonce)
-- before the wallet service asks the facilitator to settle it, so that:
--   - two identical requests racing claim it once (the unique reference; only the claimer settles);
--   - a restart between the facilitator's settle and the credit resumes it (SETTLED, not CREDITED:
--     the wallet service's resumer, or the client's retry, credits it);
--   - the credit applies once ever (billing_x402_credit locks the payment row, and the ledger's
--     unique idempotency key `x402:<payment id>` guards it a second time).
-- A payment the facilitator refused is FAILED and may be claimed again (its nonce was not spent).
CREATE TYPE "x402_payment_status" AS ENUM ('PENDING', 'SETTLED', 'CREDITED', 'FAILED');

CREATE TABLE "x402_payments" (
    "id" UUID NOT NULL,
    "reference" VARCHAR(300) NOT NULL,
    "account_id" UUID NOT NULL,
    "wallet_address" VARCHAR(64) NOT NULL,
    "network" VARCHAR(64) NOT NULL,
    "amount_nano" BIGINT NOT NULL,
    "payment" JSONB NOT NULL,
    "status" "x402_payment_status" NOT NULL DEFAULT 'PENDING',
    "transaction" VARCHAR(200),
    "failure" VARCHAR(500),
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "credited_at" TIMESTAMPTZ(3),

    CONSTRAINT "x402_payments_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "x402_payments_amount_positive" CHECK ("amount_nano" > 0)
);

CREATE UNIQUE INDEX "x402_payments_reference_key" ON "x402_payments"("reference");
CREATE INDEX "x402_payments_status_updated_at_idx" ON "x402_payments"("status", "updated_at");

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

-- The facilitator settled it on chain: recorded before the credit, so a restart credits it.
CREATE FUNCTION "billing_x402_settled"(p_reference varchar, p_transaction varchar)
RETURNS TABLE (o_status "x402_payment_status")
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "x402_payments" SET "status" = 'SETTLED', "transaction" = p_transaction, "updated_at" = now()
  WHERE "reference" = p_reference AND "status" = 'PENDING';
  RETURN QUERY SELECT "status" FROM "x402_payments" WHERE "reference" = p_reference;
END
$$;

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
