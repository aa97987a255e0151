-- Holds the worst-case cost of one request, or says why not, in one round trip. The account row
-- lock serializes reservations of one account, so concurrent requests can never together hold
-- more than the balance (or more than a key's limit: its key_usage row is locked after it).
-- Lock order everywhere: reservation, then account, then key_usage.
-- Unless p_durable, the hold commits without waiting for the WAL flush (synchronous_commit off
-- for this transaction only): admission does not wait on the disk. A crash of Postgres can lose
-- the holds of the last few hundred milliseconds that no charge has followed yet (a charge's own
-- synchronous commit flushes every earlier record); see docs/billing.md.
CREATE FUNCTION "billing_reserve"(
  p_id uuid, p_account uuid, p_key uuid, p_request varchar,
  p_cost_usd bigint, p_cost_diem bigint,
  p_limit_usd bigint, p_limit_diem bigint, p_limit_period text,
  p_model_id varchar, p_model_name varchar, p_model_type varchar,
  p_pricing jsonb, p_worst_case jsonb, p_ttl_ms integer, p_durable boolean
) RETURNS TABLE (o_outcome text, o_currency "currency", o_held bigint, o_usd_available bigint, o_diem_available bigint, o_key_used_usd bigint, o_key_used_diem bigint,
                o_order "consumption_order", o_diem_stake bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_today date := (now() AT TIME ZONE 'UTC')::date;
  v_acc "billing_accounts"%ROWTYPE;
  v_prev "reservations"%ROWTYPE;
  v_ku "key_usage"%ROWTYPE;
  v_period text;
  v_avail_usd bigint;
  v_avail_diem bigint;
  v_order "currency"[];
  v_c "currency";
  v_cost bigint;
  v_chosen "currency";
  v_key_blocked boolean := false;
  v_key_hold boolean := false;
BEGIN
  IF NOT p_durable THEN
    PERFORM set_config('synchronous_commit', 'off', true);
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

  -- A retried reservation gets its first answer back (checked under the account lock).
  SELECT * INTO v_prev FROM "reservations" WHERE "id" = p_id;
  IF FOUND THEN
    RETURN QUERY SELECT 'replay'::text, v_prev."currency", v_prev."held_nano", v_avail_usd, v_avail_diem, NULL::bigint, NULL::bigint, v_acc."consumption_order", v_acc."diem_stake_nano";
    RETURN;
  END IF;

  IF p_key IS NOT NULL AND (p_limit_usd IS NOT NULL OR p_limit_diem IS NOT NULL) THEN
    v_period := "billing_period_key"(p_limit_period, v_today);
    SELECT * INTO v_ku FROM "key_usage" WHERE "api_key_id" = p_key AND "period" = v_period FOR UPDATE;
    IF NOT FOUND THEN
      -- The first limited request of this window starts from what the key was charged in it so far.
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

  v_order := CASE v_acc."consumption_order"
    WHEN 'DIEM_FIRST' THEN ARRAY['DIEM', 'USD']::"currency"[]
    WHEN 'USD_FIRST' THEN ARRAY['USD', 'DIEM']::"currency"[]
    WHEN 'USD_ONLY' THEN ARRAY['USD']::"currency"[]
    ELSE ARRAY['DIEM']::"currency"[]
  END;
  FOREACH v_c IN ARRAY v_order LOOP
    IF v_c = 'USD' THEN
      v_cost := p_cost_usd;
      CONTINUE WHEN v_cost > v_avail_usd;
      IF p_limit_usd IS NOT NULL AND v_ku."used_usd_nano" + v_ku."held_usd_nano" + v_cost > p_limit_usd THEN
        v_key_blocked := true;
        CONTINUE;
      END IF;
      v_key_hold := p_limit_usd IS NOT NULL;
    ELSE
      -- An account that stakes nothing has no DIEM balance to draw from, not even for free requests.
      CONTINUE WHEN v_acc."diem_stake_nano" = 0;
      v_cost := p_cost_diem;
      CONTINUE WHEN v_cost > v_avail_diem;
      IF p_limit_diem IS NOT NULL AND v_ku."used_diem_nano" + v_ku."held_diem_nano" + v_cost > p_limit_diem THEN
        v_key_blocked := true;
        CONTINUE;
      END IF;
      v_key_hold := p_limit_diem IS NOT NULL;
    END IF;
    v_chosen := v_c;
    EXIT;
  END LOOP;

  IF v_chosen IS NULL THEN
    RETURN QUERY SELECT CASE WHEN v_key_blocked THEN 'key-limit' ELSE 'insufficient' END, NULL::"currency", NULL::bigint, v_avail_usd, v_avail_diem,
      coalesce(v_ku."used_usd_nano" + v_ku."held_usd_nano", 0::bigint), coalesce(v_ku."used_diem_nano" + v_ku."held_diem_nano", 0::bigint),
      v_acc."consumption_order", v_acc."diem_stake_nano";
    RETURN;
  END IF;

  UPDATE "billing_accounts" SET
    "held_usd_nano" = v_acc."held_usd_nano" + CASE WHEN v_chosen = 'USD' THEN v_cost ELSE 0 END,
    "diem_epoch" = v_acc."diem_epoch",
    "diem_used_nano" = v_acc."diem_used_nano",
    "diem_held_nano" = v_acc."diem_held_nano" + CASE WHEN v_chosen = 'DIEM' THEN v_cost ELSE 0 END,
    "updated_at" = now()
  WHERE "id" = p_account;
  IF v_key_hold THEN
    UPDATE "key_usage" SET
      "held_usd_nano" = "held_usd_nano" + CASE WHEN v_chosen = 'USD' THEN v_cost ELSE 0 END,
      "held_diem_nano" = "held_diem_nano" + CASE WHEN v_chosen = 'DIEM' THEN v_cost ELSE 0 END
    WHERE "api_key_id" = p_key AND "period" = v_period;
  END IF;
  INSERT INTO "reservations" ("id", "account_id", "api_key_id", "request_id", "model_id", "model_name", "model_type", "pricing", "worst_case", "currency", "held_nano", "epoch", "key_period", "expires_at")
  VALUES (p_id, p_account, p_key, p_request, p_model_id, p_model_name, p_model_type, p_pricing, p_worst_case, v_chosen, v_cost, v_today,
          CASE WHEN v_key_hold THEN v_period END, now() + p_ttl_ms * interval '1 millisecond');
  INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "epoch", "reservation_id")
  VALUES (p_account, v_chosen, 'HOLD', v_cost, CASE WHEN v_chosen = 'DIEM' THEN v_today END, p_id);
  RETURN QUERY SELECT 'reserved'::text, v_chosen, v_cost, v_avail_usd, v_avail_diem, NULL::bigint, NULL::bigint, v_acc."consumption_order", v_acc."diem_stake_nano";
END
$$;
