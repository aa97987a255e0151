-- Gateways admit requests under credit leases taken earlier (docs/billing.md, "Leases"). When an
-- operator changes what an account may spend in a way a lease cannot see (a lower DIEM stake, a
-- different consumption order), the gateways must stop admitting under the leases they hold for
-- it. This trigger announces such a change on commit; the billing service relays it over NATS
-- (billing.evt.account-changed.v1) and every gateway retires that account's leases. Balance
-- moves need no announcement: a debit only takes credit no lease holds, and a credit only adds.
CREATE FUNCTION "billing_account_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('billing_account_changed', NEW."id"::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER "billing_accounts_spending_changed"
AFTER UPDATE ON "billing_accounts"
FOR EACH ROW
WHEN (OLD."diem_stake_nano" IS DISTINCT FROM NEW."diem_stake_nano" OR OLD."consumption_order" IS DISTINCT FROM NEW."consumption_order")
EXECUTE FUNCTION "billing_account_changed"();
