-- Opens a credit lease: holds a block of the account's available balance (and of the key's limit
-- window when the key has a limit in that currency) for one gateway replica. The currency is the
-- first of the consumption order that can pay one unit (the worst case of the request that asked),
-- exactly as billing_reserve picks it: a later currency is never taken because the first one is
-- too small for a block. The block is at most 1/p_fraction of what is available (and of what is
-- left of the key's limit) and at most p_max_units units; under p_min_units units the answer is
-- 'exact' (the gateway reserves each request exactly, so a small balance admits exactly what it
-- can pay for). A retried open gets its first answer while the lease is open ('exact' once it is
-- not). Commits synchronously: a granted lease must survive a crash, or its requests would go
-- unbilled.
CREATE FUNCTION "billing_lease_open"(
  p_id uuid, p_account uuid, p_key uuid,
  p_limit_usd bigint, p_limit_diem bigint, p_limit_period text,
  p_unit_usd bigint, p_unit_diem bigint,
  p_min_units integer, p_max_units integer, p_fraction integer,
  p_admit_ms integer, p_ttl_ms integer
) RETURNS TABLE (o_outcome text, o_currency "currency", o_granted bigint, o_usd_available bigint, o_diem_available bigint,
                 o_admit_until timestamptz, o_expires_at timestamptz, o_replay boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := now();
  v_today date := (now() AT TIME ZONE 'UTC')::date;
  v_acc "billing_accounts"%ROWTYPE;
  v_prev "leases"%ROWTYPE;
  v_ku "key_usage"%ROWTYPE;
  v_period text;
  v_avail_usd bigint;
  v_avail_diem bigint;
  v_order "currency"[];
  v_c "currency";
  v_unit bigint;
  v_avail bigint;
  v_key_left bigint;
  v_chosen "currency";
  v_grant bigint;
  v_admit_until timestamptz;
  v_expires timestamptz;
BEGIN
  IF p_key IS NULL AND (p_limit_usd IS NOT NULL OR p_limit_diem IS NOT NULL) THEN
    RAISE EXCEPTION 'billing_lease_open: consumption limits need the key they belong to';
  END IF;
  IF p_fraction < 1 OR p_min_units < 1 OR p_max_units < p_min_units OR p_admit_ms < 1 OR p_ttl_ms < p_admit_ms THEN
    RAISE EXCEPTION 'billing_lease_open: invalid lease sizing';
  END IF;
  SELECT * INTO v_acc FROM "billing_accounts" WHERE "id" = p_account FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO "billing_accounts" ("id", "diem_epoch") VALUES (p_account, v_today) ON CONFLICT ("id") DO NOTHING;
    SELECT * INTO v_acc FROM "billing_accounts" WHERE "id" = p_account FOR UPDATE;
  END IF;
  IF v_acc."diem_epoch" <> v_today THEN
    v_acc."diem_epoch" := v_today;
    v_acc."diem_used_nano" := 0;
    v_acc."diem_held_nano" := 0;
  END IF;
  v_avail_usd := v_acc."balance_usd_nano" - v_acc."held_usd_nano";
  v_avail_diem := greatest(v_acc."diem_stake_nano" - v_acc."diem_used_nano" - v_acc."diem_held_nano", 0);

  -- A retried open gets its first answer back (checked under the account lock).
  SELECT * INTO v_prev FROM "leases" WHERE "id" = p_id;
  IF FOUND THEN
    IF v_prev."status" = 'OPEN' AND v_prev."admit_until" > v_now THEN
      RETURN QUERY SELECT 'granted'::text, v_prev."currency", v_prev."granted_nano",
        v_avail_usd + CASE WHEN v_prev."currency" = 'USD' THEN v_prev."held_nano" ELSE 0 END,
        v_avail_diem + CASE WHEN v_prev."currency" = 'DIEM' AND v_prev."epoch" = v_acc."diem_epoch" THEN v_prev."held_nano" ELSE 0 END,
        v_prev."admit_until", v_prev."expires_at", true;
    ELSE
      RETURN QUERY SELECT 'exact'::text, NULL::"currency", NULL::bigint, v_avail_usd, v_avail_diem, NULL::timestamptz, NULL::timestamptz, true;
    END IF;
    RETURN;
  END IF;

  -- The key's window, exactly as billing_reserve locks or creates it.
  IF p_key IS NOT NULL AND (p_limit_usd IS NOT NULL OR p_limit_diem IS NOT NULL) THEN
    v_period := "billing_period_key"(p_limit_period, v_today);
    SELECT * INTO v_ku FROM "key_usage" WHERE "api_key_id" = p_key AND "period" = v_period FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO "key_usage" ("api_key_id", "period", "used_usd_nano", "used_diem_nano")
      SELECT p_key, v_period,
             coalesce(sum(u."amount_nano") FILTER (WHERE u."currency" = 'USD'), 0),
             coalesce(sum(u."amount_nano") FILTER (WHERE u."currency" = 'DIEM'), 0)
      FROM "usage_entries" u
      WHERE u."account_id" = p_account AND u."api_key_id" = p_key
        AND u."created_at" >= CASE p_limit_period
              WHEN 'EPOCH' THEN v_today::timestamp AT TIME ZONE 'UTC'
              WHEN 'MONTH' THEN date_trunc('month', v_today::timestamp) AT TIME ZONE 'UTC'
              ELSE '-infinity'::timestamptz END
      ON CONFLICT DO NOTHING;
      SELECT * INTO v_ku FROM "key_usage" WHERE "api_key_id" = p_key AND "period" = v_period FOR UPDATE;
    END IF;
  END IF;

  -- The consumption order, with the cost of one unit: the first currency that can pay it is the lease's.
  v_order := CASE v_acc."consumption_order"
    WHEN 'DIEM_FIRST' THEN ARRAY['DIEM', 'USD']::"currency"[]
    WHEN 'USD_FIRST' THEN ARRAY['USD', 'DIEM']::"currency"[]
    WHEN 'USD_ONLY' THEN ARRAY['USD']::"currency"[]
    ELSE ARRAY['DIEM']::"currency"[]
  END;
  FOREACH v_c IN ARRAY v_order LOOP
    IF v_c = 'USD' THEN
      v_unit := p_unit_usd;
      v_avail := v_avail_usd;
      v_key_left := p_limit_usd - v_ku."used_usd_nano" - v_ku."held_usd_nano";
    ELSE
      CONTINUE WHEN v_acc."diem_stake_nano" = 0;
      v_unit := p_unit_diem;
      v_avail := v_avail_diem;
      v_key_left := p_limit_diem - v_ku."used_diem_nano" - v_ku."held_diem_nano";
    END IF;
    CONTINUE WHEN v_unit > v_avail;
    CONTINUE WHEN v_key_left IS NOT NULL AND v_unit > v_key_left;
    v_chosen := v_c;
    EXIT;
  END LOOP;

  IF v_chosen IS NOT NULL THEN
    v_grant := least(v_avail / p_fraction, v_unit::numeric * p_max_units)::bigint;
    IF v_key_left IS NOT NULL THEN
      v_grant := least(v_grant, v_key_left / p_fraction);
    END IF;
    IF v_unit <= 0 OR v_grant < v_unit::numeric * p_min_units THEN
      v_chosen := NULL;
    END IF;
  END IF;
  IF v_chosen IS NULL THEN
    RETURN QUERY SELECT 'exact'::text, NULL::"currency", NULL::bigint, v_avail_usd, v_avail_diem, NULL::timestamptz, NULL::timestamptz, false;
    RETURN;
  END IF;

  UPDATE "billing_accounts" SET
    "held_usd_nano" = v_acc."held_usd_nano" + CASE WHEN v_chosen = 'USD' THEN v_grant ELSE 0 END,
    "diem_epoch" = v_acc."diem_epoch",
    "diem_used_nano" = v_acc."diem_used_nano",
    "diem_held_nano" = v_acc."diem_held_nano" + CASE WHEN v_chosen = 'DIEM' THEN v_grant ELSE 0 END,
    "updated_at" = now()
  WHERE "id" = p_account;
  IF v_key_left IS NOT NULL THEN
    UPDATE "key_usage" SET
      "held_usd_nano" = "held_usd_nano" + CASE WHEN v_chosen = 'USD' THEN v_grant ELSE 0 END,
      "held_diem_nano" = "held_diem_nano" + CASE WHEN v_chosen = 'DIEM' THEN v_grant ELSE 0 END
    WHERE "api_key_id" = p_key AND "period" = v_period;
  END IF;
  INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "epoch", "reservation_id")
  VALUES (p_account, v_chosen, 'HOLD', v_grant, CASE WHEN v_chosen = 'DIEM' THEN v_today END, p_id);
  -- No admission after the UTC day of the grant: the DIEM epoch and an EPOCH key window end there.
  INSERT INTO "leases" ("id", "account_id", "api_key_id", "key_period", "currency", "epoch", "granted_nano", "held_nano", "admit_until", "expires_at")
  VALUES (p_id, p_account, p_key, CASE WHEN v_key_left IS NOT NULL THEN v_period END, v_chosen, v_today, v_grant, v_grant,
          least(v_now + p_admit_ms * interval '1 millisecond', (v_today + 1)::timestamp AT TIME ZONE 'UTC'),
          v_now + p_ttl_ms * interval '1 millisecond')
  RETURNING "admit_until", "expires_at" INTO v_admit_until, v_expires;
  RETURN QUERY SELECT 'granted'::text, v_chosen, v_grant, v_avail_usd, v_avail_diem, v_admit_until, v_expires, false;
END
$$;
