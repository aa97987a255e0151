-- For the sweeper: a lease past its expiry plus the settle grace (its gateway died, or some of its
-- settlements never came) returns everything it still holds and is CLOSED. 'skipped' when it was
-- closed meanwhile or is not due. Settlements arriving later are charged as late ones.
CREATE FUNCTION "billing_lease_expire"(p_id uuid, p_grace_ms integer)
RETURNS TABLE (o_status text, o_released bigint, o_settled integer, o_admitted integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_l "leases"%ROWTYPE;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT * INTO v_l FROM "leases" WHERE "id" = p_id FOR UPDATE;
  IF NOT FOUND OR v_l."status" = 'CLOSED' OR v_l."expires_at" + p_grace_ms * interval '1 millisecond' > now() THEN
    RETURN QUERY SELECT 'skipped'::text, 0::bigint, v_l."settled_count", v_l."admitted_count";
    RETURN;
  END IF;
  PERFORM "billing_lease_release"(v_l, v_l."held_nano");
  UPDATE "leases" SET "status" = 'CLOSED', "closed_at" = now() WHERE "id" = p_id;
  RETURN QUERY SELECT 'expired'::text, v_l."held_nano", v_l."settled_count", v_l."admitted_count";
END
$$;
