-- Settles a batch of requests admitted under leases, in one transaction. Each item (see
-- LeasesRepository.settleLeased) becomes a child reservation of its lease, created final:
--   - lease OPEN or CLOSING: charged from the lease's hold, at most the child's own hold h;
--     under a CLOSING lease the child's unused part is released at once, and the whole rest when
--     the last admitted request has settled (the lease is then CLOSED);
--   - lease CLOSED (a late settlement): charged from what the account has available, never
--     below zero and never more than h; the rest is uncollected;
--   - a gateway fallback (a cut or broken stream, the gateway's own count) under an OPEN or
--     CLOSING lease: the child's hold moves out of the lease into a HELD child with the fallback,
--     which the service's settlement or the sweeper finalizes as any reservation ('fallback-recorded');
--   - a child that exists already: 'already-final', except a RELEASED one that now gets a
--     SERVICE charge (charged as a late settlement, as billing_settle does), and a HELD one (a
--     fallback), which the caller settles with billing_settle ('deferred');
--   - an unknown lease, or a currency other than the lease's: 'not-found', nothing changes.
-- Each lease, its account and its key window are written once per batch, not once per request.
-- o_over_hold: what the usage cost beyond the child's hold (never charged; the caller logs it).
-- Commits synchronously (the server's setting): an acknowledged charge is durable.
-- What the client did not receive is never charged, as in billing_settle.
CREATE FUNCTION "billing_settle_leased"(p_items jsonb, p_grace_ms integer)
RETURNS TABLE (o_index integer, o_id uuid, o_status text, o_currency "currency", o_charged bigint, o_over_hold bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := now();
  v_today date := (now() AT TIME ZONE 'UTC')::date;
  r record;
  v_l "leases"%ROWTYPE;
  v_acc "billing_accounts"%ROWTYPE;
  v_r "reservations"%ROWTYPE;
  v_group uuid;
  v_have boolean := false;
  v_dirty boolean := false;
  v_same_epoch boolean;
  v_key_held bigint := 0;
  v_key_used bigint := 0;
  v_release bigint := 0;
  v_new boolean;
  v_closing boolean;
  v_mode text;
  v_held bigint;
  v_charge bigint;
  v_amount bigint;
  v_child_key uuid;
  -- Written at the end, in one statement each: the children's ledger entries, and the items whose
  -- usage lines are recorded (index in p_items, what was charged, account, key, currency).
  v_entries "billing_entry"[] := '{}';
  u_index integer[] := '{}';
  u_charge bigint[] := '{}';
  u_account uuid[] := '{}';
  u_key uuid[] := '{}';
  u_currency "currency"[] := '{}';
BEGIN
  -- Every lease of the batch, then every account, each in id order, before anything is written.
  PERFORM 1 FROM "leases" WHERE "id" IN (SELECT (e->>'lease_id')::uuid FROM jsonb_array_elements(p_items) e) ORDER BY "id" FOR UPDATE;
  PERFORM 1 FROM "billing_accounts"
    WHERE "id" IN (SELECT l."account_id" FROM "leases" l WHERE l."id" IN (SELECT (e->>'lease_id')::uuid FROM jsonb_array_elements(p_items) e))
    ORDER BY "id" FOR UPDATE;

  -- Grouped by lease; of two items for one child, one that charges comes first.
  FOR r IN
    SELECT (x."ordinality" - 1)::integer AS idx, x.*
    FROM ROWS FROM (jsonb_to_recordset(p_items) AS (
      "id" uuid, "lease_id" uuid, "api_key_id" uuid, "currency" "currency", "request_id" varchar, "model_id" varchar, "model_name" varchar,
      "model_type" varchar, "pricing" jsonb, "worst_case" jsonb, "held" bigint, "charge" bigint, "source" "settle_source", "outcome" varchar,
      "fallback" jsonb, "prompt_tokens" integer, "completion_tokens" integer, "execution_ms" integer)) WITH ORDINALITY AS x
    ORDER BY x."lease_id", x."id", (x."charge" > 0) DESC, x."ordinality"
  LOOP
    IF v_group IS DISTINCT FROM r."lease_id" THEN
      IF v_dirty THEN
        PERFORM "billing_lease_write"(v_l, v_acc, v_key_held, v_key_used, v_release);
      END IF;
      v_group := r."lease_id";
      v_dirty := false;
      v_key_held := 0;
      v_key_used := 0;
      v_release := 0;
      SELECT * INTO v_l FROM "leases" WHERE "id" = r."lease_id";
      v_have := FOUND;
      IF v_have THEN
        SELECT * INTO v_acc FROM "billing_accounts" WHERE "id" = v_l."account_id";
        IF v_acc."diem_epoch" <> v_today THEN
          v_acc."diem_epoch" := v_today;
          v_acc."diem_used_nano" := 0;
          v_acc."diem_held_nano" := 0;
        END IF;
        v_same_epoch := v_l."epoch" = v_acc."diem_epoch";
      END IF;
    END IF;

    o_index := r.idx;
    o_id := r."id";
    o_over_hold := 0;
    IF NOT v_have OR r."currency" <> v_l."currency" THEN
      o_status := 'not-found';
      o_currency := NULL;
      o_charged := 0;
      RETURN NEXT;
      CONTINUE;
    END IF;

    -- What this item is: a new child (settled from the lease, late, or a fallback), or one seen before.
    SELECT * INTO v_r FROM "reservations" WHERE "id" = r."id";
    v_new := NOT FOUND;
    IF v_new THEN
      v_held := r."held";
      v_mode := CASE WHEN v_l."status" = 'CLOSED' THEN 'late' WHEN r."fallback" IS NOT NULL AND r."source" = 'GATEWAY' THEN 'fallback' ELSE 'lease' END;
      -- The usage of a lease for a limited key counts against that key; else the request's own key.
      v_child_key := CASE WHEN v_l."key_period" IS NOT NULL THEN v_l."api_key_id" ELSE coalesce(r."api_key_id", v_l."api_key_id") END;
    ELSE
      o_currency := v_r."currency";
      o_charged := v_r."charged_nano";
      -- A fallback child, or an undelivered one the service charged: billing_settle decides.
      IF v_r."status" = 'HELD'
         OR (v_r."status" = 'SETTLED' AND v_r."settled_by" = 'SERVICE' AND r."source" = 'GATEWAY' AND r."outcome" = 'failed' AND r."charge" = 0) THEN
        o_status := 'deferred';
        o_charged := 0;
        RETURN NEXT;
        CONTINUE;
      ELSIF NOT (v_r."status" = 'RELEASED' AND v_r."settled_by" IS DISTINCT FROM 'GATEWAY' AND r."charge" > 0 AND r."source" = 'SERVICE'
                 AND v_r."lease_id" = v_l."id") THEN
        o_status := 'already-final';
        RETURN NEXT;
        CONTINUE;
      END IF;
      -- Released first, charged now: a late settlement, as billing_settle makes it.
      v_held := v_r."held_nano";
      v_mode := 'late';
      v_child_key := v_r."api_key_id";
    END IF;

    IF v_mode = 'fallback' THEN
      v_amount := least(v_held, v_l."held_nano");
      v_charge := 0;
    ELSIF v_mode = 'lease' THEN
      v_charge := least(r."charge", v_held, v_l."held_nano");
    ELSE
      -- Late: what the account can pay now. A DIEM lease of a past epoch has nothing left to pay from.
      v_charge := greatest(least(r."charge", v_held,
        CASE WHEN v_l."currency" = 'USD' THEN v_acc."balance_usd_nano" - v_acc."held_usd_nano"
             WHEN v_same_epoch THEN greatest(v_acc."diem_stake_nano" - v_acc."diem_used_nano" - v_acc."diem_held_nano", 0)
             ELSE 0 END), 0);
    END IF;

    IF v_new THEN
      INSERT INTO "reservations" ("id", "account_id", "api_key_id", "request_id", "model_id", "model_name", "model_type", "pricing", "worst_case",
                                  "currency", "held_nano", "epoch", "key_period", "status", "fallback", "charged_nano", "uncollected_nano",
                                  "settled_by", "outcome", "expires_at", "finalized_at", "lease_id")
      VALUES (r."id", v_l."account_id", v_child_key, r."request_id", r."model_id", r."model_name", r."model_type", r."pricing", r."worst_case",
              v_l."currency", CASE WHEN v_mode = 'fallback' THEN v_amount ELSE v_held END, v_l."epoch", v_l."key_period",
              (CASE WHEN v_mode = 'fallback' THEN 'HELD' WHEN r."charge" > 0 THEN 'SETTLED' ELSE 'RELEASED' END)::"reservation_status",
              CASE WHEN v_mode = 'fallback' THEN r."fallback" END, v_charge, CASE WHEN v_mode = 'fallback' THEN 0 ELSE r."charge" - v_charge END,
              CASE WHEN v_mode <> 'fallback' THEN r."source" END, CASE WHEN v_mode <> 'fallback' THEN r."outcome" END,
              CASE WHEN v_mode = 'fallback' THEN v_now + p_grace_ms * interval '1 millisecond' ELSE v_l."expires_at" END,
              CASE WHEN v_mode <> 'fallback' THEN v_now END, v_l."id");
      v_l."settled_count" := v_l."settled_count" + 1;
      v_l."settled_held_nano" := v_l."settled_held_nano" + v_held;
    ELSE
      UPDATE "reservations" SET
        "status" = 'SETTLED', "charged_nano" = v_charge, "uncollected_nano" = r."charge" - v_charge,
        "settled_by" = 'SERVICE', "outcome" = r."outcome", "finalized_at" = v_now
      WHERE "id" = r."id" AND "status" = 'RELEASED';
      IF NOT FOUND THEN
        o_status := 'already-final';
        RETURN NEXT;
        CONTINUE;
      END IF;
    END IF;
    v_dirty := true;

    IF v_mode = 'fallback' THEN
      -- The hold moves from the lease to the child: a RELEASE and a HOLD, nothing changes on the account or the key.
      v_l."held_nano" := v_l."held_nano" - v_amount;
      v_l."released_nano" := v_l."released_nano" + v_amount;
      v_entries := v_entries || "billing_entry"(v_l."account_id", v_l."currency", 'RELEASE', -v_amount, v_l."epoch", v_l."id")
                             || "billing_entry"(v_l."account_id", v_l."currency", 'HOLD', v_amount, v_l."epoch", r."id");
    ELSIF v_charge > 0 THEN
      IF v_mode = 'lease' THEN
        -- Paid from the lease's hold: the hold shrinks by the charge.
        v_l."held_nano" := v_l."held_nano" - v_charge;
        v_l."charged_nano" := v_l."charged_nano" + v_charge;
        IF v_l."currency" = 'USD' THEN
          v_acc."held_usd_nano" := v_acc."held_usd_nano" - v_charge;
        ELSIF v_same_epoch THEN
          v_acc."diem_held_nano" := v_acc."diem_held_nano" - v_charge;
        END IF;
        v_key_held := v_key_held - v_charge;
        v_entries := v_entries || "billing_entry"(v_l."account_id", v_l."currency", 'RELEASE', -v_charge, v_l."epoch", r."id");
      END IF;
      IF v_l."currency" = 'USD' THEN
        v_acc."balance_usd_nano" := v_acc."balance_usd_nano" - v_charge;
      ELSIF v_same_epoch THEN
        v_acc."diem_used_nano" := v_acc."diem_used_nano" + v_charge;
      END IF;
      v_key_used := v_key_used + v_charge;
      v_entries := v_entries || "billing_entry"(v_l."account_id", v_l."currency", 'CHARGE', -v_charge, v_l."epoch", r."id");
    END IF;
    IF v_mode <> 'fallback' THEN
      u_index := u_index || r.idx;
      u_charge := u_charge || v_charge;
      u_account := u_account || v_l."account_id";
      u_key := u_key || v_child_key;
      u_currency := u_currency || v_l."currency";
    END IF;

    -- The gateway is done with a CLOSING lease: what this child did not use goes back now, and
    -- everything once the last admitted request has settled.
    IF v_new AND v_l."status" = 'CLOSING' THEN
      IF v_l."settled_count" >= v_l."admitted_count" THEN
        v_amount := v_l."held_nano";
        v_l."status" := 'CLOSED';
        v_l."closed_at" := v_now;
      ELSE
        v_amount := least(CASE WHEN v_mode = 'fallback' THEN 0 ELSE v_held - v_charge END, v_l."held_nano");
      END IF;
      IF v_amount > 0 THEN
        v_l."held_nano" := v_l."held_nano" - v_amount;
        v_l."released_nano" := v_l."released_nano" + v_amount;
        v_release := v_release + v_amount;
        IF v_l."currency" = 'USD' THEN
          v_acc."held_usd_nano" := v_acc."held_usd_nano" - v_amount;
        ELSIF v_same_epoch THEN
          v_acc."diem_held_nano" := v_acc."diem_held_nano" - v_amount;
        END IF;
        v_key_held := v_key_held - v_amount;
      END IF;
    END IF;

    o_currency := CASE WHEN v_mode <> 'fallback' THEN v_l."currency" END;
    o_charged := v_charge;
    o_status := CASE WHEN v_mode = 'fallback' THEN 'fallback-recorded' WHEN r."charge" > 0 THEN 'settled' ELSE 'released' END;
    o_over_hold := CASE WHEN v_mode = 'fallback' THEN 0 ELSE greatest(r."charge" - v_held, 0) END;
    RETURN NEXT;
  END LOOP;
  IF v_dirty THEN
    PERFORM "billing_lease_write"(v_l, v_acc, v_key_held, v_key_used, v_release);
  END IF;

  INSERT INTO "ledger_entries" ("account_id", "currency", "kind", "amount_nano", "epoch", "reservation_id")
  SELECT e."account_id", e."currency", e."kind", e."amount_nano", e."epoch", e."reservation_id" FROM unnest(v_entries) AS e;

  -- Usage lines exactly as billing_settle writes them: capped in order so they add up to what was charged.
  INSERT INTO "usage_entries" ("account_id", "api_key_id", "reservation_id", "request_id", "model_id", "model_name", "model_type", "line_type", "sku", "unit_type",
                               "quantity", "per_sku_unit", "unit_price_usd_nano", "currency", "amount_nano", "prompt_tokens", "completion_tokens", "execution_ms")
  SELECT u."account", u."key", (i.item->>'id')::uuid, i.item->>'request_id', i.item->>'model_id', i.item->>'model_name', i.item->>'model_type',
         l.line->>'type', l.line->>'sku', l.line->>'unitType', (l.line->>'quantity')::bigint, (l.line->>'perSkuUnit')::integer, (l.line->>'unitPriceUsd')::bigint, u."currency",
         least((l.line->>'amount')::bigint, greatest(u."charge" - (sum((l.line->>'amount')::bigint) OVER (PARTITION BY u."idx" ORDER BY l.ord) - (l.line->>'amount')::bigint), 0)),
         (i.item->>'prompt_tokens')::integer, (i.item->>'completion_tokens')::integer, (i.item->>'execution_ms')::integer
  FROM unnest(u_index, u_charge, u_account, u_key, u_currency) AS u("idx", "charge", "account", "key", "currency")
  CROSS JOIN LATERAL (SELECT p_items->u."idx" AS item) AS i
  CROSS JOIN LATERAL jsonb_array_elements(i.item->'lines') WITH ORDINALITY AS l(line, ord)
  ORDER BY u."idx", l.ord;
END
$$;
