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
