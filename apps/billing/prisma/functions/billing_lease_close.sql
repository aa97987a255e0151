-- The gateway is done with a lease: p_admitted requests were admitted under it, holding
-- p_admitted_nano in all. What no admitted-but-unsettled request can still need is released at
-- once; the rest as those requests settle (billing_settle_leased), or everything now when they all
-- have. Idempotent: 'closing' and 'already-closed' change nothing. Commits without waiting for the
-- disk: a lost close only leaves the hold to the sweeper.
CREATE FUNCTION "billing_lease_close"(p_id uuid, p_admitted integer, p_admitted_nano bigint)
RETURNS TABLE (o_status text, o_released bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_l "leases"%ROWTYPE;
  v_release bigint;
  v_done boolean;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT * INTO v_l FROM "leases" WHERE "id" = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not-found'::text, 0::bigint;
    RETURN;
  END IF;
  IF v_l."status" <> 'OPEN' THEN
    RETURN QUERY SELECT CASE WHEN v_l."status" = 'CLOSED' THEN 'already-closed' ELSE 'closing' END, 0::bigint;
    RETURN;
  END IF;
  v_done := v_l."settled_count" >= p_admitted;
  v_release := CASE WHEN v_done THEN v_l."held_nano"
                    ELSE least(v_l."held_nano", greatest(v_l."held_nano" - greatest(p_admitted_nano - v_l."settled_held_nano", 0), 0)) END;
  PERFORM "billing_lease_release"(v_l, v_release);
  UPDATE "leases" SET
    "admitted_count" = p_admitted,
    "admitted_nano" = p_admitted_nano,
    "status" = CASE WHEN v_done THEN 'CLOSED' ELSE 'CLOSING' END::"lease_status",
    "closed_at" = CASE WHEN v_done THEN now() END
  WHERE "id" = p_id;
  RETURN QUERY SELECT CASE WHEN v_done THEN 'closed' ELSE 'closing' END, v_release;
END
$$;
